// Engines: SQLite only: filing synced IMAP mail by the receive lists, a protocol rule (the moves on a real Dovecot); the lists' rules run on both engines in test/mailbox/address-lists.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../helpers/dovecot.js';
import { eventuallyFolder, listFolder, remoteFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';

describe('receive lists on a connected (IMAP) mailbox', () => {
  let world: ImapWorld;
  beforeAll(async () => {
    world = await startImapWorld('lists');
    await world.other.append('INBOX', rawMessage({ subject: 'Hello' }), []);
    expect((await world.connect()).status).toBe(201);
    await eventuallyFolder(world, 'INBOX', (e) => e.length === 1);
  });
  afterAll(async () => world?.stop());

  const subjects = (emails: { subject: string }[]) => emails.map((e) => e.subject).sort();

  it('files synced mail whose header From is blocked into Spam, here and on the server, once', async () => {
    const blocked = await world.server.api('/lists/receive/block', {
      body: { entry: 'pest.example', account: world.address },
    });
    expect(blocked.status).toBe(201);
    await world.other.append(
      'INBOX',
      rawMessage({ subject: 'From a pest', from: 'x@mail.pest.example' }),
      [],
    );
    await world.other.append(
      'INBOX',
      rawMessage({ subject: 'From a friend', from: 'ann@friends.example' }),
      [],
    );

    const spam = await eventuallyFolder(world, 'Spam', (e) => e.length > 0);
    expect(subjects(spam)).toEqual(['From a pest']);
    await eventuallyFolder(world, 'INBOX', (e) => e.length === 2);
    expect(subjects(await remoteFolder(world.other, 'Junk'))).toEqual(['From a pest']);
    expect(subjects(await remoteFolder(world.other, 'INBOX'))).toEqual(['From a friend', 'Hello']);

    // Later syncs (a new message shows one ran, after Spam's sync that followed the move) keep one copy, in Spam.
    await world.other.append('INBOX', rawMessage({ subject: 'Later' }), []);
    const inbox = await eventuallyFolder(world, 'INBOX', (e) => e.length === 3);
    expect(subjects(inbox)).toEqual(['From a friend', 'Hello', 'Later']);
    expect(subjects(await listFolder(world, 'Spam'))).toEqual(['From a pest']);
  });
});
