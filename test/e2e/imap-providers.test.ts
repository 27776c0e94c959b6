// Engines: SQLite only: the IMAP providers' settings, a protocol rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../src/mailbox/connect/providers.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import { ADMIN_TOKEN, FAST_IMAP } from '../helpers/imap-setup.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';

// Connecting by provider: the address, the password and the provider name are all it takes. The
// real Fastmail cannot be reached here, so its preset is pointed at a local Dovecot.
describe('connecting a mailbox by provider', { timeout: 60_000 }, () => {
  let dovecot: Dovecot;
  let capture: CaptureServer;
  let server: TestServer;
  const address = 'ann@example.net';

  beforeAll(async () => {
    dovecot = await startDovecot();
    dovecot.addUser(address, 'ann-app-password');
    capture = await startCaptureServer();
    server = await startServer({
      adminToken: ADMIN_TOKEN,
      imapOptions: FAST_IMAP,
      lookups: {
        providers: {
          ...PROVIDERS,
          fastmail: {
            ...PROVIDERS.fastmail,
            imap: { host: '127.0.0.1', port: dovecot.port, security: 'none' },
            smtp: { host: '127.0.0.1', port: Number(new URL(capture.url).port), security: 'none' },
          },
        },
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await capture?.close();
    await dovecot?.stop();
  });

  const connect = (body: Record<string, unknown>) =>
    server.api('/admin/v1/inboxes', { key: ADMIN_TOKEN, body: { user: 'default', ...body } });

  it('fills the servers from the preset and syncs with the password given', async () => {
    const other = await dovecot.client(address);
    await other.append('INBOX', rawMessage({ subject: 'Waiting at the provider', to: address }), []);
    await other.logout();
    const res = await connect({ address, provider: 'fastmail', password: 'ann-app-password' });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.servers).toEqual({
      imap: `imap://ann%40example.net@127.0.0.1:${dovecot.port}`,
      smtp: `${capture.url}`.replace('smtp://', 'smtp://ann%40example.net@'),
      auth: 'password',
      source: 'the fastmail preset (Fastmail)',
    });
    expect(res.text).not.toContain('ann-app-password');
    await eventually(async () => {
      const list = await server.api(`/emails?account=${encodeURIComponent(address)}&folder=INBOX`);
      return list.json.data?.emails?.[0]?.subject === 'Waiting at the provider';
    }, 20_000);
  });

  it('refuses a wrong password with 502 and keeps nothing', async () => {
    dovecot.addUser('bob@example.net', 'right');
    const res = await connect({ address: 'bob@example.net', provider: 'fastmail', password: 'wrong' });
    expect(res.status).toBe(502);
    expect(await server.mailroom.deps.store.inboxes.findByAddress('bob@example.net')).toBeUndefined();
  });

  it('says what is missing for OAuth2-only providers and for a client id not set', async () => {
    const microsoft = await connect({
      address: 'carl@contoso.example',
      provider: 'microsoft',
      password: 'pw',
    });
    expect(microsoft.status).toBe(400);
    expect(microsoft.json.error.message).toContain('accept only OAuth2');
    const gmail = await connect({ address: 'dora@gmail.example', provider: 'gmail', refreshToken: 'rt' });
    expect(gmail.status).toBe(400);
    expect(gmail.json.error.message).toContain('MAILROOM_OAUTH_GMAIL_CLIENT_ID');
    const unknown = await connect({ address: 'ed@example.org', provider: 'aol', password: 'pw' });
    expect(unknown.status).toBe(400);
  });
});
