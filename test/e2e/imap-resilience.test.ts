// Engines: SQLite only: IMAP sync through dropped connections, a protocol rule; postgres-doors syncs from Dovecot on PostgreSQL.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../helpers/dovecot.js';
import { eventuallyFolder, listFolder, remoteFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';
import { eventually } from '../helpers/server.js';
import { compiled } from '../helpers/compiled.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const entry = await compiled('src/cli/main.ts');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [entry, ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) || 1 : 0, stdout, stderr }),
    );
  });
}

describe('an IMAP mailbox through server restarts and UIDVALIDITY changes', () => {
  let world: ImapWorld;
  const state = async () => {
    const list = await world.server.api('/accounts');
    return list.json.data.accounts.find((a: { address: string }) => a.address === world.address)?.sync;
  };

  beforeAll(async () => {
    world = await startImapWorld();
    await world.other.mailboxCreate('Archive');
    for (const n of [1, 2, 3]) {
      await world.other.append(
        'Archive',
        rawMessage({ subject: `Archived ${n}`, messageId: `<a${n}@example.com>` }),
        ['\\Seen'],
      );
    }
    await world.other.append('INBOX', rawMessage({ subject: 'Before' }), []);
  });
  afterAll(async () => world.stop());

  it('connects from the CLI while the server runs; the server picks the inbox up', async () => {
    const res = await cli(
      [
        'inbox',
        'connect',
        world.address,
        '--user',
        'default',
        '--imap',
        world.dovecot.url(world.user),
        '--smtp',
        world.capture.url,
        '--data-dir',
        world.server.dataDir,
        '--json',
      ],
      world.server.cliEnv,
    );
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout).inbox).toMatchObject({ address: world.address, kind: 'imap' });
    expect(res.stdout).not.toContain(world.password);
    await eventuallyFolder(world, 'Archive', (e) => e.length === 3);
    await eventually(async () => (await state())?.state === 'synced');
  });

  it('the CLI refuses a wrong password in one line', async () => {
    const res = await cli(
      [
        'inbox',
        'connect',
        'second@example.org',
        '--user',
        'default',
        '--imap',
        world.dovecot.url(world.user, 'nope'),
        '--smtp',
        world.capture.url,
        '--data-dir',
        world.server.dataDir,
      ],
      world.server.cliEnv,
    );
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toMatch(/^mailroom: the IMAP server .* refused the login/);
  });

  it('reconnects after the IMAP server restarts and catches up on what arrived meanwhile', async () => {
    const before = await listFolder(world, 'INBOX');
    await world.dovecot.kill();
    await eventually(async () => (await state())?.error);
    // Mail delivered while Mailroom cannot connect.
    await world.dovecot.start();
    const other = await world.dovecot.client(world.user);
    await other.append('INBOX', rawMessage({ subject: 'During the outage' }), []);
    await other.logout();
    world.other.close();
    world.other = await world.dovecot.client(world.user);
    const inbox = await eventuallyFolder(
      world,
      'INBOX',
      (e) => e.some((m) => m.subject === 'During the outage'),
      15_000,
    );
    expect(inbox).toHaveLength(before.length + 1);
    await eventually(async () => (await state())?.state === 'synced' && (await state())?.error === null);
    // New mail still arrives promptly on the new connection.
    await world.other.append('INBOX', rawMessage({ subject: 'After the restart' }), []);
    await eventuallyFolder(world, 'INBOX', (e) => e.some((m) => m.subject === 'After the restart'), 5000);
  });

  it('resyncs a folder whose UIDVALIDITY changed without duplicates, keeping uids', async () => {
    const before = await listFolder(world, 'Archive');
    const uidOf = (list: { subject: string; uid: number }[], subject: string) =>
      list.find((m) => m.subject === subject)?.uid;
    const validity = await world.other.status('Archive', { uidValidity: true });
    // Another client drops one message and adds one; then the server forgets the folder's UIDs
    // and numbers it again (a new UIDVALIDITY), as after a rebuilt index.
    const lock = await world.other.getMailboxLock('Archive');
    try {
      const three = (await world.other.search({ subject: 'Archived 3' }, { uid: true })) || [];
      await world.other.messageDelete(three.join(','), { uid: true });
    } finally {
      lock.release();
    }
    await world.other.append('Archive', rawMessage({ subject: 'Archived 4' }), []);
    await world.other.logout();
    await world.dovecot.renumber(world.user, 'Archive');
    world.other = await world.dovecot.client(world.user);
    const after = await world.other.status('Archive', { uidValidity: true });
    expect(after && after.uidValidity).not.toBe(validity && validity.uidValidity);

    const archive = await eventuallyFolder(
      world,
      'Archive',
      (e) => e.length === 3 && e.some((m) => m.subject === 'Archived 4'),
      10_000,
    );
    expect(archive.map((m) => m.subject).sort()).toEqual(['Archived 1', 'Archived 2', 'Archived 4']);
    expect(uidOf(archive, 'Archived 1')).toBe(uidOf(before, 'Archived 1'));
    expect(uidOf(archive, 'Archived 2')).toBe(uidOf(before, 'Archived 2'));

    // And writes use the new UIDs.
    const four = archive.find((m) => m.subject === 'Archived 4');
    const read = await world.server.api(`/emails/${four.uid}?account=${world.address}`, {
      method: 'PATCH',
      body: { action: 'read' },
    });
    expect(read.status).toBe(200);
    const remote = await remoteFolder(world.other, 'Archive');
    expect(remote.find((m) => m.subject === 'Archived 4')!.flags).toContain('\\Seen');
  });

  it('holds exactly the remote mail after all of it', async () => {
    await new Promise((r) => setTimeout(r, 600));
    for (const folder of ['INBOX', 'Archive', 'Sent', 'Trash']) {
      const remote = (await remoteFolder(world.other, folder)).map((m) => m.subject).sort();
      // Converges, on a slow machine too; a duplicate would never let it.
      const same = (list: { subject: string }[]) =>
        JSON.stringify(list.map((e) => e.subject).sort()) === JSON.stringify(remote);
      await eventuallyFolder(world, folder, same).catch(() => undefined);
      const local = await listFolder(world, folder);
      expect(local.map((e) => e.subject).sort(), folder).toEqual(remote);
    }
  });
});
