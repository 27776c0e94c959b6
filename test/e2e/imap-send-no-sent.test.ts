// Engines: SQLite only: sending through an IMAP account without a Sent folder, a protocol rule.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxDefinitions, rawMessage } from '../helpers/dovecot.js';
import { eventuallyFolder, listFolder, remoteFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';

/** A server with Drafts and Trash but no Sent folder at all. */
const NO_SENT = mailboxDefinitions(['Drafts', 'Trash']);

describe('sending from an IMAP mailbox whose server has no Sent folder', () => {
  let world: ImapWorld;
  const send = (subject: string) =>
    world.server.api('/emails/send', {
      body: { from: world.address, to: 'dave@example.com', subject, text: 'x' },
    });

  beforeAll(async () => {
    world = await startImapWorld('owner', { dovecot: { mailboxes: NO_SENT } });
    await world.other.append('INBOX', rawMessage({ subject: 'Hello' }), []);
    expect((await world.connect()).status).toBe(201);
    await eventuallyFolder(world, 'INBOX', (e) => e.length === 1);
  });
  afterAll(async () => world.stop());

  it('says savedToSent false, with the reason, when the server stores nothing', async () => {
    // A plain file where the folder's directory would go: the server can neither create nor
    // fill Sent. (A read-only mail directory would do too, but can strand Dovecot's lock files.)
    const blocker = path.join(world.dovecot.dir, 'mail', world.user, '.Sent');
    fs.writeFileSync(blocker, '');
    try {
      const res = await send('Not saved');
      expect(res.status).toBe(200);
      expect(res.json.data.delivery).toEqual([{ recipient: 'dave@example.com', status: 'delivered' }]);
      expect(res.json.data.savedToSent).toBe(false);
      expect(res.json.data.savedToSentError).toMatch(/IMAP server/);
    } finally {
      fs.rmSync(blocker);
    }
    expect((await world.other.list()).map((f) => f.path)).not.toContain('Sent');
  });

  it('creates Sent on the server and saves there', async () => {
    const res = await send('Saved after all');
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ savedToSent: true });
    expect(res.json.data.savedToSentError).toBeUndefined();
    expect((await remoteFolder(world.other, 'Sent')).map((m) => m.subject)).toEqual(['Saved after all']);
    // The next sync maps the new folder onto the local Sent, holding the copy once.
    await new Promise((r) => setTimeout(r, 600));
    const local = await eventuallyFolder(world, 'Sent', (e) =>
      e.some((m) => m.subject === 'Saved after all'),
    );
    expect(local.filter((m) => m.subject === 'Saved after all')).toHaveLength(1);
    expect((await listFolder(world, 'Sent')).find((m) => m.subject === 'Saved after all').uid).toBe(
      res.json.data.uid,
    );
  });
});
