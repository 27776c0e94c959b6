// Engines: SQLite only: Gmail's IMAP views, a protocol rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../helpers/dovecot.js';
import { eventuallyFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';
import { eventually } from '../helpers/server.js';

/** Gmail's layout on a server that flags none of it (no SPECIAL-USE on these folders). */
async function gmailLayout(world: ImapWorld) {
  const hello = rawMessage({ subject: 'Hello', messageId: '<hello@example.com>' });
  await world.other.append('INBOX', hello, ['\\Flagged']);
  for (const view of ['[Gmail]/All Mail', '[Gmail]/Starred', '[Gmail]/Important']) {
    await world.other.mailboxCreate(view);
    await world.other.append(view, hello, ['\\Flagged']);
  }
  await world.other.append('[Gmail]/All Mail', rawMessage({ subject: 'Archived only' }), []);
  await world.other.mailboxCreate('Starred');
  await world.other.append('Starred', rawMessage({ subject: 'A real folder' }), []);
}

const folderNames = async (world: ImapWorld) =>
  (
    (await world.server.api(`/folders?account=${encodeURIComponent(world.address)}`)).json.data.folders as {
      name: string;
    }[]
  ).map((f) => f.name);

const helloThread = async (world: ImapWorld) => {
  const res = await world.server.api(`/threads?account=${encodeURIComponent(world.address)}`);
  return res.json.data.threads.find((t: { subject: string }) => t.subject === 'Hello');
};

describe('Gmail-style All Mail, Starred and Important without SPECIAL-USE', () => {
  let world: ImapWorld;
  beforeAll(async () => {
    world = await startImapWorld();
    await gmailLayout(world);
    expect((await world.connect()).status).toBe(201);
    await eventuallyFolder(world, 'Starred', (e) => e.length === 1);
    await eventuallyFolder(world, 'INBOX', (e) => e.length === 1);
    // One whole pass over every folder done.
    await eventually(async () => {
      const accounts = (await world.server.api('/accounts')).json.data.accounts;
      return accounts.find((a: { address: string }) => a.address === world.address)?.sync?.lastSyncAt;
    });
  });
  afterAll(async () => world.stop());

  it('are not synced: a thread counts its message once', async () => {
    const names = await folderNames(world);
    expect(names).not.toContain('[Gmail]/All Mail');
    expect(names).not.toContain('[Gmail]/Starred');
    expect(names).not.toContain('[Gmail]/Important');
    expect(names).toContain('Starred');
    expect(await helloThread(world)).toMatchObject({ messageCount: 1 });
  });
});

describe('MAILROOM_IMAP_SYNC_ALL_MAIL=true', () => {
  let world: ImapWorld;
  beforeAll(async () => {
    world = await startImapWorld('owner', { env: { MAILROOM_IMAP_SYNC_ALL_MAIL: 'true' } });
    await gmailLayout(world);
    expect((await world.connect()).status).toBe(201);
  });
  afterAll(async () => world.stop());

  it('syncs the views too, as ordinary folders', async () => {
    const all = await eventuallyFolder(world, '[Gmail]/All Mail', (e) => e.length === 2);
    expect(all.map((e) => e.subject).sort()).toEqual(['Archived only', 'Hello']);
    expect(await folderNames(world)).toEqual(
      expect.arrayContaining(['[Gmail]/Starred', '[Gmail]/Important', 'Starred']),
    );
  });
});
