import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEmail } from '../../src/mail/parse.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { fileMessage } from '../../src/mailbox/ingest/file-message.js';
import { newId } from '../../src/store/ids.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { inProcessInbox } from '../helpers/in-process.js';

const fixture = (name: string): Buffer => fs.readFileSync(new URL(`../../fixtures/${name}`, import.meta.url));

describe('filing a message on the ingest path', () => {
  let deps: MailboxDeps;
  let close: (() => Promise<void>) | undefined;
  let inbox: InboxRow;

  beforeAll(async () => {
    ({ deps, inbox, close } = await inProcessInbox('bob@mailroom.test'));
  });
  afterAll(async () => close?.());

  // fileMessage returns the row it wrote instead of reading it back: it must be exactly the stored row.
  it.each(['multipart-alternative.eml', 'attachments.eml', 'reply-chain-2.eml', 'no-message-id-no-date.eml'])(
    'returns the same row the database holds for %s',
    async (name) => {
      const raw = fixture(name);
      const parsed = await parseEmail(raw);
      const folder = (await deps.store.folders.find(inbox.id, 'INBOX'))!;
      const row = await deps.store.db.transaction(
        async () =>
          await fileMessage(deps.store, {
            inbox,
            folder,
            parsed,
            raw,
            flags: ['\\Flagged'],
            receivedAt: new Date('2026-01-02T03:04:05Z'),
            authResults: { spf: 'pass' },
          }),
      );
      const stored = await deps.store.messages.get(row.id);
      expect(row).toStrictEqual({ ...stored, ...(await deps.store.messages.bodies([row.id])).get(row.id) });
      expect((await deps.store.messages.attachmentsOf([row.id])).get(row.id) ?? []).toHaveLength(
        parsed.attachments.length,
      );
      expect(await deps.store.messages.raw(row.id)).toEqual(raw);
    },
  );
});

describe('newId', () => {
  it('gives distinct ids of the asked length across many draws of the random pool', () => {
    const ids = Array.from({ length: 5000 }, () => newId('evt'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^evt_[A-Za-z0-9_-]{22}$/);
    expect(newId('thr', 12)).toMatch(/^thr_[A-Za-z0-9_-]{16}$/);
  });
});
