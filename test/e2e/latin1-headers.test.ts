// Engines: SQLite only: decoding 8-bit headers is the MIME layer's, over SMTP and IMAP doors; what is stored is UTF-8 text either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventuallyFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp } from '../helpers/smtp-session.js';
import { latin1Message } from '../helpers/latin1-message.js';

const expected = { subject: 'Café crème à la française', fromName: 'René Müller' };

describe('raw 8-bit Latin-1 headers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server.stop());

  it('read in the declared charset when delivered over SMTP', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const result = await smtp.send(
      'rene@example.com',
      [server.inbox],
      latin1Message(server.inbox, 'text/plain; charset=iso-8859-1'),
    );
    await smtp.close();
    const uid = Number(/stored (\d+)/.exec(result.data?.text ?? '')?.[1]);
    const res = await server.api(`/emails/${uid}?account=${encodeURIComponent(server.inbox)}`);
    expect(res.json.data.email).toMatchObject(expected);
    expect(res.json.data.email.text).toContain('Voilà.');
  });
});

describe('raw 8-bit Latin-1 headers in an IMAP mailbox', () => {
  let world: ImapWorld;
  beforeAll(async () => {
    world = await startImapWorld();
    // No charset declared at all: Windows-1252 is assumed.
    await world.other.append('INBOX', latin1Message(world.address, 'text/plain'), []);
    expect((await world.connect()).status).toBe(201);
  });
  afterAll(async () => world.stop());

  it('read as Windows-1252 when nothing is declared', async () => {
    const [email] = await eventuallyFolder(world, 'INBOX', (e) => e.length === 1);
    expect(email).toMatchObject(expected);
  });
});
