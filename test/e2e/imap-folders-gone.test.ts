// Engines: SQLite only: IMAP folders deleted on the remote, a protocol rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../helpers/dovecot.js';
import { eventuallyFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';
import { eventually } from '../helpers/server.js';

describe('IMAP folders renamed or deleted by another client', () => {
  let world: ImapWorld;
  const acc = () => `account=${encodeURIComponent(world.address)}`;
  const folderNames = async () =>
    ((await world.server.api(`/folders?${acc()}`)).json.data.folders as { name: string }[]).map(
      (f) => f.name,
    );

  beforeAll(async () => {
    world = await startImapWorld();
    await world.other.mailboxCreate('Projects');
    await world.other.mailboxCreate('Reports');
    await world.other.append(
      'Projects',
      rawMessage({ subject: 'Plan', messageId: '<plan@example.com>' }),
      [],
    );
    await world.other.append('Reports', rawMessage({ subject: 'Q1 report' }), []);
    await world.other.append('Sent', rawMessage({ subject: 'Sent before' }), ['\\Seen']);
    expect((await world.connect()).status).toBe(201);
    await eventuallyFolder(world, 'Projects', (e) => e.length === 1);
    await eventuallyFolder(world, 'Reports', (e) => e.length === 1);
  });
  afterAll(async () => world.stop());

  it('drops the local copy of a deleted folder and holds renamed mail once', async () => {
    await world.other.mailboxRename('Projects', 'Work');
    await world.other.mailboxDelete('Reports');
    await eventuallyFolder(world, 'Work', (e) => e.length === 1);
    const names = await eventually(async () => {
      const list = await folderNames();
      return list.includes('Projects') || list.includes('Reports') ? null : list;
    });
    expect(names).toContain('Work');
    const threads = await world.server.api(`/threads?${acc()}`);
    const plan = threads.json.data.threads.filter((t: { subject: string }) => t.subject === 'Plan');
    expect(plan).toHaveLength(1);
    expect(plan[0].messageCount).toBe(1);
    const search = await world.server.api(`/emails?${acc()}&folder=Work&q=report`);
    expect(search.json.data.emails).toEqual([]);
    expect(threads.json.data.threads.map((t: { subject: string }) => t.subject)).not.toContain('Q1 report');
  });
});
