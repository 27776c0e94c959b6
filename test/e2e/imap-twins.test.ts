// Engines: SQLite only: the same message in two IMAP folders, a protocol rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../helpers/dovecot.js';
import { eventuallyFolder, listFolder, remoteFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';

describe('two messages with one Message-ID through a UIDVALIDITY change', () => {
  let world: ImapWorld;
  const twin = (subject: string) =>
    rawMessage({ subject, messageId: '<twin@example.com>', date: new Date('2026-03-01T09:00:00Z') });

  beforeAll(async () => {
    world = await startImapWorld();
    await world.other.mailboxCreate('Twins');
    await world.other.append('Twins', twin('Twin A'), ['\\Seen']);
    await world.other.append('Twins', twin('Twin B'), []);
    await world.other.append(
      'Twins',
      rawMessage({ subject: 'Single', messageId: '<single@example.com>' }),
      [],
    );
    expect((await world.connect()).status).toBe(201);
    await eventuallyFolder(world, 'Twins', (e) => e.length === 3);
  });
  afterAll(async () => world.stop());

  it('ties each local copy to its own remote message, so a write changes the right one', async () => {
    const before = await listFolder(world, 'Twins');
    // The server numbers the folder again, the twins now the other way round.
    await world.other.logout();
    await world.dovecot.renumber(world.user, 'Twins', { reverse: true });
    world.other = await world.dovecot.client(world.user);
    await world.other.append('Twins', rawMessage({ subject: 'After' }), []);

    const flagsOf = (list: { subject: string; flags: string[] }[], subject: string) =>
      list.find((m) => m.subject === subject)?.flags;
    const after = await eventuallyFolder(
      world,
      'Twins',
      (e) =>
        e.length === 4 &&
        e.some((m) => m.subject === 'After') &&
        flagsOf(e, 'Twin A')?.includes('\\Seen') === true &&
        flagsOf(e, 'Twin B')?.includes('\\Seen') === false,
      15_000,
    );
    const uidOf = (list: { subject: string; uid: number }[], subject: string) =>
      list.find((m) => m.subject === subject)!.uid;
    expect(uidOf(after, 'Single')).toBe(uidOf(before, 'Single'));

    const patch = (uid: number, action: string) =>
      world.server.api(`/emails/${uid}?account=${encodeURIComponent(world.address)}`, {
        method: 'PATCH',
        body: { action },
      });
    expect((await patch(uidOf(after, 'Twin A'), 'unread')).status).toBe(200);
    expect((await patch(uidOf(after, 'Twin B'), 'flag')).status).toBe(200);
    const remote = await remoteFolder(world.other, 'Twins');
    const remoteFlags = (subject: string) => remote.find((m) => m.subject === subject)!.flags;
    expect(remoteFlags('Twin A')).not.toContain('\\Seen');
    expect(remoteFlags('Twin A')).not.toContain('\\Flagged');
    expect(remoteFlags('Twin B')).toContain('\\Flagged');
  });
});
