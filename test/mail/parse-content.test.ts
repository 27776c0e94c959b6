import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEmail } from '../../src/mail/parse.js';

const fixture = (name: string): Buffer => fs.readFileSync(new URL(`../../fixtures/${name}`, import.meta.url));

describe('parseEmail: which attachments keep their bytes', () => {
  it('keeps no attachment bytes when asked for none, yet reports every exact size', async () => {
    const raw = fixture('attachments.eml');
    const full = await parseEmail(raw);
    const bare = await parseEmail(raw, { content: 'none' });
    expect(full.attachments.map((a) => a.content.length)).toEqual(full.attachments.map((a) => a.size));
    expect(full.attachments.every((a) => a.size > 0)).toBe(true);
    expect(bare.attachments.map((a) => a.content.length)).toEqual([0, 0, 0]);
    expect(bare.attachments.map(({ content: _, ...meta }) => meta)).toEqual(
      full.attachments.map(({ content: _, ...meta }) => meta),
    );
    expect({ ...bare, attachments: [] }).toEqual({ ...full, attachments: [] });
  });

  it('keeps the bytes of the one attachment asked for by id, exactly', async () => {
    const raw = fixture('attachments.eml');
    const full = await parseEmail(raw);
    const second = await parseEmail(raw, { content: { only: 'a2' } });
    expect(second.attachments[0]!.content.length).toBe(0);
    expect(second.attachments[2]!.content.length).toBe(0);
    expect(second.attachments[1]!.content.equals(full.attachments[1]!.content)).toBe(true);
    expect(second.attachments[1]!.content.toString()).toBe(
      'Meeting notes\r\n- budget approved\r\n- next review in June\r\n',
    );
  });
});
