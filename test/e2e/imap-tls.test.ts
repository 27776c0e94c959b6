// Engines: SQLite only: IMAP over TLS, a protocol rule.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import { ADMIN_TOKEN, FAST_IMAP } from '../helpers/imap-setup.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';

// Debian's default Dovecot serves a self-signed certificate: a mailbox there is connected by
// trusting that certificate (tls.ca) or, said out loud, by not checking (tls.insecure).
describe('IMAP over TLS with a self-signed certificate', { timeout: 60_000 }, () => {
  let dir: string;
  let certPem: string;
  let dovecot: Dovecot;
  let capture: CaptureServer;
  let server: TestServer;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-tls-'));
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-keyout', key, '-out', cert,
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'ignore' }); // prettier-ignore
    fs.chmodSync(key, 0o644);
    certPem = fs.readFileSync(cert, 'utf8');
    dovecot = await startDovecot({ tls: { cert, key } });
    for (const user of ['trusting', 'careless']) dovecot.addUser(user, `pw-${user}`);
    capture = await startCaptureServer();
    server = await startServer({ adminToken: ADMIN_TOKEN, imapOptions: FAST_IMAP });
  });
  afterAll(async () => {
    await server?.stop();
    await capture?.close();
    await dovecot?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const connect = (user: string, tls?: object) =>
    server.api('/admin/v1/inboxes', {
      key: ADMIN_TOKEN,
      body: {
        address: `${user}@example.org`,
        user: 'default',
        imap: { url: dovecot.tlsUrl(user), ...(tls ? { tls } : {}) },
        smtp: { url: capture.url },
      },
    });
  const account = async (address: string) =>
    ((await server.api('/accounts')).json.data.accounts as { address: string; sync?: object }[]).find(
      (a) => a.address === address,
    );

  it('refuses the untrusted certificate in plain words, saying what to give', async () => {
    const res = await connect('trusting');
    expect(res.status).toBe(422);
    expect(res.json.error.message).toContain('does not trust');
    expect(res.json.error.message).toContain('imap.tls.ca');
  });

  it('refuses a ca that is not PEM, and ca with insecure together', async () => {
    const notPem = await connect('trusting', { ca: 'not a certificate' });
    expect(notPem.status).toBe(400);
    expect(JSON.stringify(notPem.json)).toContain('imap.tls.ca');
    const both = await connect('trusting', { ca: certPem, insecure: true });
    expect(both.status).toBe(400);
  });

  it('connects and syncs when given the certificate to trust', async () => {
    const other = await dovecot.client('trusting');
    await other.append('INBOX', rawMessage({ subject: 'Over TLS' }), []);
    await other.logout();
    const res = await connect('trusting', { ca: certPem });
    expect(res.status).toBe(201);
    const list = await eventually(async () => {
      const r = await server.api('/emails?account=trusting@example.org');
      return r.status === 200 && r.json.data.emails.length === 1 && r.json.data.emails;
    });
    expect(list[0].subject).toBe('Over TLS');
    expect(await account('trusting@example.org')).toMatchObject({ sync: { certificates: 'given-ca' } });
  });

  it('connects with insecure: true and shows that certificates are not checked', async () => {
    const res = await connect('careless', { insecure: true });
    expect(res.status).toBe(201);
    expect(await account('careless@example.org')).toMatchObject({ sync: { certificates: 'off' } });
  });
});
