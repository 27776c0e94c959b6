// Engines: SQLite only: STARTTLS on the SMTP listener, a protocol rule.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp } from '../helpers/smtp-session.js';

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version']);
    return true;
  } catch {
    return false;
  }
})();

/** A fresh self-signed certificate for `name`, written over `cert` and `key`. */
function selfSigned(dir: string, name: string): { cert: string; key: string } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** Reads SMTP replies (last line `NNN text`) off a socket. */
function replyReader(socket: net.Socket | tls.TLSSocket) {
  let buffer = '';
  let waiting: ((reply: string) => void) | null = null;
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    const end = /(^|\r\n)\d{3} [^\r\n]*\r\n/.exec(buffer);
    if (end && waiting) {
      const cut = end.index + end[0].length;
      const reply = buffer.slice(0, cut);
      buffer = buffer.slice(cut);
      const resolve = waiting;
      waiting = null;
      resolve(reply);
    }
  };
  socket.on('data', onData);
  return {
    next: () => new Promise<string>((resolve) => (waiting = resolve)),
    detach: () => socket.off('data', onData),
  };
}

/** EHLO, STARTTLS, handshake: the certificate the server showed and its EHLO over TLS. */
async function startTls(port: number): Promise<{ subject: string; fingerprint: string; ehlo: string }> {
  const plain = net.connect(port, '127.0.0.1');
  const reader = replyReader(plain);
  await reader.next();
  plain.write('EHLO client.example\r\n');
  await reader.next();
  plain.write('STARTTLS\r\n');
  expect(await reader.next()).toMatch(/^220 /);
  reader.detach();
  const secure = tls.connect({ socket: plain, rejectUnauthorized: false, servername: 'localhost' });
  await new Promise<void>((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
  const peer = secure.getPeerCertificate();
  const overTls = replyReader(secure);
  secure.write('EHLO client.example\r\n');
  const ehlo = await overTls.next();
  secure.end('QUIT\r\n');
  return { subject: peer.subject.CN as string, fingerprint: peer.fingerprint256, ehlo };
}

describe('inbound SMTP without a certificate', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server.stop());

  it('does not advertise STARTTLS', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const ehlo = await smtp.command('EHLO client.example');
    await smtp.close();
    expect(ehlo.code).toBe(250);
    expect(ehlo.text).not.toMatch(/STARTTLS/);
  });

  it('refuses a certificate without its key (and the reverse) at start', () => {
    expect(() => loadConfig({ tlsCert: '/x/cert.pem' }, {})).toThrow(ConfigError);
    expect(() => loadConfig({ tlsKey: '/x/key.pem' }, {})).toThrow(ConfigError);
  });
});

describe.skipIf(!hasOpenssl)('inbound SMTP with STARTTLS', () => {
  let server: TestServer;
  let dir: string;
  let files: { cert: string; key: string };
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-tls-'));
    files = selfSigned(dir, 'first.mailroom.test');
    server = await startServer({ tlsCert: files.cert, tlsKey: files.key });
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('advertises STARTTLS and stores a message sent over TLS', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const ehlo = await smtp.command('EHLO client.example');
    await smtp.close();
    expect(ehlo.text).toMatch(/^STARTTLS$/m);

    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: server.mailroom.smtp.port,
      secure: false,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
    });
    try {
      await transport.sendMail({
        from: 'tls@example.com',
        to: server.inbox,
        subject: 'Over TLS',
        text: 'secret',
      });
    } finally {
      transport.close();
    }
    const list = await server.api(`/emails?account=${server.inbox}`);
    const email = list.json.data.emails.find((e: { subject: string }) => e.subject === 'Over TLS');
    expect(email).toBeDefined();
    const raw = await server.api(`/emails/${email.uid}/raw?account=${server.inbox}`);
    expect(raw.text.split(/\r?\n(?![ \t])/)[0]).toMatch(/ with ESMTPS /);
  });

  it('shows the new certificate to new connections once the files change, without a restart', async () => {
    const before = await startTls(server.mailroom.smtp.port);
    expect(before.subject).toBe('first.mailroom.test');
    expect(before.ehlo).not.toMatch(/STARTTLS/);

    selfSigned(dir, 'renewed.mailroom.test');
    const after = await startTls(server.mailroom.smtp.port);
    expect(after.subject).toBe('renewed.mailroom.test');
    expect(after.fingerprint).not.toBe(before.fingerprint);
  });
});
