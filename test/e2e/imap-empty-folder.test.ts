// Engines: SQLite only: an empty IMAP folder, a protocol rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../helpers/dovecot.js';
import { eventuallyFolder, listFolder, remoteFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';

describe('emptying a folder of a connected (IMAP) inbox', () => {
  let world: ImapWorld;
  const empty = (query: string) =>
    world.server.api(`/emails?account=${encodeURIComponent(world.address)}&${query}`, { method: 'DELETE' });

  beforeAll(async () => {
    world = await startImapWorld('emptier');
    for (const subject of ['First', 'Second', 'Third'])
      await world.other.append('INBOX', rawMessage({ subject, to: world.address }), []);
    await world.other.mailboxCreate('Projects');
    await world.other.append('Projects', rawMessage({ subject: 'Plan', to: world.address }), []);
    expect((await world.connect()).status).toBe(201);
    await eventuallyFolder(world, 'INBOX', (e) => e.length === 3);
    await eventuallyFolder(world, 'Projects', (e) => e.length === 1);
  });
  afterAll(async () => world.stop());

  it('moves the remote messages to the remote Trash first, then the local copies (uids kept)', async () => {
    const uids = (await listFolder(world, 'INBOX')).map((e) => e.uid).sort();
    const res = await empty('folder=INBOX');
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ folder: 'INBOX', count: 3, deleted: false, movedTo: 'Trash' });
    expect(await remoteFolder(world.other, 'INBOX')).toEqual([]);
    expect((await remoteFolder(world.other, 'Trash')).map((m) => m.subject).sort()).toEqual([
      'First',
      'Second',
      'Third',
    ]);
    const trash = await listFolder(world, 'Trash');
    expect(trash.map((e) => e.uid).sort()).toEqual(uids);
    expect(await listFolder(world, 'INBOX')).toEqual([]);
  });

  it('expunges for good on the server with permanent=true, and when emptying Trash', async () => {
    const res = await empty('folder=Projects&permanent=true');
    expect(res.json.data).toEqual({ folder: 'Projects', count: 1, deleted: true, movedTo: null });
    expect(await remoteFolder(world.other, 'Projects')).toEqual([]);

    const trash = await empty('folder=Trash');
    expect(trash.json.data).toEqual({ folder: 'Trash', count: 3, deleted: true, movedTo: null });
    expect(await remoteFolder(world.other, 'Trash')).toEqual([]);
    expect(await listFolder(world, 'Trash')).toEqual([]);
  });

  it('changes nothing here when the server cannot be reached', async () => {
    await world.other.append('INBOX', rawMessage({ subject: 'Kept', to: world.address }), []);
    await eventuallyFolder(world, 'INBOX', (e) => e.length === 1);
    await world.dovecot.kill();
    const res = await empty('folder=INBOX');
    expect(res.status).toBe(422);
    expect((await listFolder(world, 'INBOX')).map((e) => e.subject)).toEqual(['Kept']);
  });
});
