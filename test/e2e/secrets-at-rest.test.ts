import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { createMailroom } from '../../src/mailroom.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { dkimResults } from '../helpers/dkim.js';
import { eventually, onPostgres, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const FILES = ['mailroom.db', 'mailroom.db-wal', 'mailroom.db-shm', 'secret.key'];
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

/** Every byte SQLite keeps of this database: the file and its write-ahead log. */
function onDisk(dataDir: string, needle: string): boolean {
  return ['mailroom.db', 'mailroom.db-wal'].some((name) => {
    const file = path.join(dataDir, name);
    return fs.existsSync(file) && fs.readFileSync(file).includes(Buffer.from(needle));
  });
}

/** What would give a secret away on disk: a line of the PEM body, the PEM marker, the webhook key. */
function telltales(privateKeyPem: string, webhookSecret: string): string[] {
  const pemLine = privateKeyPem.split('\n').find((line) => line.length === 64)!;
  return [pemLine, 'PRIVATE KEY', webhookSecret.replace(/^whsec_/, '')];
}

describe('secrets at rest', () => {
  let root: string;
  let dataDir: string;
  let capture: CaptureServer;
  let receiver: WebhookReceiver;
  let server: TestServer;
  let webhook: { id: string; secret: string };

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-secrets-'));
    dataDir = path.join(root, 'data');
    capture = await startCaptureServer();
    receiver = await WebhookReceiver.start();
    server = await startServer({
      dataDir,
      outbound: 'relay',
      relayUrl: capture.url,
      outboundOptions: { retryBaseMs: 150, retryMaxMs: 300, pollMs: 200 },
      webhookRetryDelaysMs: [100, 100, 100],
    });
    const res = await server.api('/webhooks', { body: { url: receiver.url, events: ['email.received'] } });
    expect(res.status).toBe(201);
    webhook = res.json.data.webhook;
  });
  afterAll(async () => {
    await server.stop();
    await receiver.close();
    await capture.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const privateKey = async () =>
    (await server.mailroom.deps.store.domains.signingKey('mailroom.test'))!.privateKey;

  async function expectDkimPass() {
    const sent = await server.api('/emails/send', {
      body: { from: server.inbox, to: 'verify@example.com', subject: 'Signed', text: 'check me' },
    });
    expect(sent.status).toBe(200);
    const messageId = sent.json.data.messageId as string;
    const copy = await eventually(() =>
      capture.messages.find((m) => m.raw.toString('utf8').includes(`Message-ID: ${messageId}`)),
    );
    const domain = (await server.mailroom.deps.store.domains.find('mailroom.test'))!;
    const results = await dkimResults(copy.raw, domain, server.inbox);
    expect(results.map((r) => r.status?.result)).toEqual(['pass']);
  }

  async function expectWebhookVerifies(secret: string) {
    const before = receiver.delivered.length;
    await server.sendMail({ from: 'alice@example.com', to: server.inbox, subject: 'Ping', text: 'hello' });
    const [request] = await eventually(
      () => receiver.delivered.length > before && receiver.delivered.slice(before),
    );
    expect(new Webhook(secret).verify(request!.body, request!.headers)).toEqual(request!.json);
  }

  // On PostgreSQL: there is no database file in the data directory to check the mode of.
  it.skipIf(onPostgres)(
    'creates the data directory 0700 and the database, its WAL files and secret.key 0600',
    async () => {
      await server.sendMail({ from: 'alice@example.com', to: server.inbox, subject: 'Hi', text: 'a write' });
      expect(modeOf(dataDir).toString(8)).toBe('700');
      for (const name of FILES)
        expect([name, modeOf(path.join(dataDir, name)).toString(8)]).toEqual([name, '600']);
    },
  );

  it('keeps the DKIM key and the webhook secret off the disk in clear, and still signs with both', async () => {
    await expectDkimPass();
    await expectWebhookVerifies(webhook.secret);
    for (const needle of telltales(await privateKey(), webhook.secret))
      expect(onDisk(dataDir, needle)).toBe(false);
  });

  // On PostgreSQL: the older version's clear secrets are written into the SQLite file.
  it.skipIf(onPostgres)(
    'seals what an older version stored in clear, tightens its modes, and keeps working',
    async () => {
      const pem = await privateKey();
      await server.restart(() => {
        // The database as an older version left it: secrets in clear, no secret check, 755/644.
        const sqlite = new BetterSqlite3(path.join(dataDir, 'mailroom.db'));
        sqlite.prepare('UPDATE domains SET dkim_private_key = ? WHERE name = ?').run(pem, 'mailroom.test');
        sqlite.prepare('UPDATE webhooks SET secret = ? WHERE id = ?').run(webhook.secret, webhook.id);
        sqlite.prepare("DELETE FROM settings WHERE key = 'secret_check'").run();
        sqlite.close();
        for (const needle of telltales(pem, webhook.secret)) expect(onDisk(dataDir, needle)).toBe(true);
        fs.chmodSync(dataDir, 0o755);
        fs.chmodSync(path.join(dataDir, 'mailroom.db'), 0o644);
        fs.chmodSync(path.join(dataDir, 'secret.key'), 0o644);
      });

      for (const needle of telltales(pem, webhook.secret)) expect(onDisk(dataDir, needle)).toBe(false);
      expect(modeOf(dataDir).toString(8)).toBe('700');
      for (const name of FILES)
        expect([name, modeOf(path.join(dataDir, name)).toString(8)]).toEqual([name, '600']);
      expect(await privateKey()).toBe(pem);
      await expectDkimPass();
      await expectWebhookVerifies(webhook.secret);
    },
  );

  it('refuses to start with another MAILROOM_SECRET, saying which setting is wrong', async () => {
    const start = () =>
      createMailroom({
        env: {},
        dataDir,
        databaseUrl: server.cliEnv.MAILROOM_DATABASE_URL,
        secret: 'not the secret this database was sealed with',
        httpPort: 0,
        smtpPort: 0,
        logger: pino({ level: 'silent' }),
      }).start();
    await expect(start()).rejects.toThrow(ConfigError);
    await expect(start()).rejects.toThrow(/MAILROOM_SECRET.*secret\.key/);
  });
});
