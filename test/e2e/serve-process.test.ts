// Engines: SQLite only: `mailroom serve` as a process (stdout, stderr, signals); postgres-start and postgres-banner start it on PostgreSQL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVE_THREADS, spawnServe } from '../helpers/serve-process.js';
import type { ServeProcess } from '../helpers/serve-process.js';
import { eventually } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp } from '../helpers/smtp-session.js';
import { openStream } from '../helpers/sse-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const INBOX = 'agent@mailroom.test';

/** Every stdout line parsed as JSON: a line that is not fails the test. */
function logLines(serve: ServeProcess): Record<string, unknown>[] {
  return serve
    .stdout()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`stdout line is not JSON: ${line}`);
      }
    });
}

function keyOf(serve: ServeProcess): string {
  const key = /mr_live_[\w-]+/.exec(serve.stderr())?.[0];
  if (!key) throw new Error(`no key on stderr:\n${serve.stderr()}`);
  return key;
}

/** Reads an event stream until the server ends it (a reset counts as ended too). */
async function ended(stream: { next(): Promise<unknown> }): Promise<void> {
  try {
    while ((await stream.next()) !== null);
  } catch {
    // the connection was cut: ended as well
  }
}

// Each start compiles TypeScript in a new Node process: allow a slow machine its time.
describe('mailroom serve as a process', { timeout: 300_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-serve-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('writes only JSON lines to stdout, one per request with its id, and the first key on stderr', async () => {
    const serve = await spawnServe({ ...SERVE_THREADS, MAILROOM_DATA_DIR: dataDir });
    let stopped: { code: number | null } | undefined;
    try {
      const key = keyOf(serve);
      expect(serve.stderr()).toContain('API key (shown only now; store it)');
      const auth = { authorization: `Bearer ${key}` };
      const list = await fetch(`${serve.baseUrl}/api/v1/emails?account=${INBOX}`, {
        headers: { ...auth, 'x-request-id': 'tour-step-1' },
      });
      expect(list.status).toBe(200);
      expect(list.headers.get('x-request-id')).toBe('tour-step-1');
      const odd = await fetch(`${serve.baseUrl}/api/v1/emails?account=${INBOX}`, {
        headers: { ...auth, 'x-request-id': 'spaces and <angles>' },
      });
      const fresh = odd.headers.get('x-request-id');
      expect(fresh).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const sent = await fetch(`${serve.baseUrl}/api/v1/emails/send`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'x-request-id': 'send-1' },
        body: JSON.stringify({ from: INBOX, to: ['x@example.com'], subject: 'S', text: 'BODY-MARKER' }),
      });
      expect(sent.status).toBe(200);
      const refused = await fetch(`${serve.baseUrl}/api/v1/emails/7?account=${INBOX}`, {
        headers: { authorization: 'Bearer mr_live_wrong', 'x-request-id': 'refused-1' },
      });
      expect(refused.status).toBe(401);

      const lines = await eventually(() => {
        const all = logLines(serve);
        return all.some((l) => l.requestId === 'refused-1') && all;
      });
      const byId = (id: string) => lines.find((l) => l.msg === 'request' && l.requestId === id);
      expect(byId('tour-step-1')).toMatchObject({
        method: 'GET',
        route: '/api/v1/emails',
        status: 200,
        keyId: expect.stringMatching(/^key_/),
        ms: expect.any(Number),
      });
      expect(byId(fresh!)).toMatchObject({ route: '/api/v1/emails', status: 200 });
      expect(byId('send-1')).toMatchObject({ method: 'POST', route: '/api/v1/emails/send', status: 200 });
      expect(byId('refused-1')).toMatchObject({ route: '/api/v1/emails/:id', status: 401 });
      expect(byId('refused-1')).not.toHaveProperty('keyId');
      expect(serve.stdout()).not.toContain(key);
      expect(serve.stdout()).not.toContain('mr_live_wrong');
      expect(serve.stdout()).not.toContain('BODY-MARKER');
    } finally {
      stopped = await serve.stop();
    }
    expect(stopped.code).toBe(0);
    expect(logLines(serve).at(-1)).toMatchObject({ msg: 'mailroom stopped' });
  });

  it('says on a later start how to make a key, since the first one is not shown again', async () => {
    const serve = await spawnServe({ ...SERVE_THREADS, MAILROOM_DATA_DIR: dataDir });
    try {
      expect(serve.stderr()).not.toMatch(/mr_live_/);
      expect(serve.stderr()).toContain(`npx mailroom key create --user default --data-dir ${dataDir}`);
      expect(logLines(serve).length).toBeGreaterThan(0);
    } finally {
      await serve.stop();
    }
  });

  it('stops within Docker’s 10 s with an SMTP transaction, an idle SMTP client, an event stream and a webhook in flight', async () => {
    const ownDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-stop-'));
    const receiver = await WebhookReceiver.start();
    receiver.hang();
    const serve = await spawnServe({
      ...SERVE_THREADS,
      MAILROOM_DATA_DIR: ownDir,
      MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    try {
      const key = keyOf(serve);
      const hook = await fetch(`${serve.baseUrl}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['email.received'] }),
      });
      expect(hook.status).toBe(201);
      const sender = await openSmtp(serve.smtpPort);
      const delivered = await sender.send('a@example.com', [INBOX], 'Subject: hi\r\n\r\nhello\r\n');
      expect(delivered.data?.code).toBe(250);
      await eventually(() => receiver.requests.length > 0); // the webhook POST now hangs

      const stream = await openStream({ baseUrl: serve.baseUrl, key } as TestServer, `?account=${INBOX}`);
      const idle = await openSmtp(serve.smtpPort);
      await idle.command('EHLO idle.example');
      const busy = await openSmtp(serve.smtpPort);
      await busy.command('EHLO busy.example');
      await busy.command('MAIL FROM:<b@example.com>');
      await busy.command(`RCPT TO:<${INBOX}>`);
      expect((await busy.command('DATA')).code).toBe(354);
      busy.write('Subject: never finished\r\n\r\nhalf a mess');

      const { code, ms } = await serve.stop();
      expect(code).toBe(0);
      // Docker sends SIGKILL 10 s after SIGTERM (docker stop's default); the stop is bounded below it.
      expect(ms).toBeLessThan(10_000);
      expect((await busy.nextReply()).code).toBe(421);
      await Promise.all([idle.closed, busy.closed]);
      await ended(stream);
      expect(logLines(serve).at(-1)).toMatchObject({ msg: 'mailroom stopped' });
      await sender.close();
    } finally {
      await serve.stop();
      await receiver.close();
      fs.rmSync(ownDir, { recursive: true, force: true });
    }
  });

  it('takes its first key and the admin token from files, and never prints either', async () => {
    const ownDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-seed-'));
    const secrets = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-secrets-'));
    const key = `mr_live_${'k'.repeat(20)}${Date.now()}seeded`;
    const token = `admin-token-${Date.now()}-long-enough`;
    fs.writeFileSync(path.join(secrets, 'key'), `${key}\n`);
    fs.writeFileSync(path.join(secrets, 'token'), `${token}\n`);
    const serve = await spawnServe({
      ...SERVE_THREADS,
      MAILROOM_DATA_DIR: ownDir,
      MAILROOM_BOOTSTRAP_KEY_FILE: path.join(secrets, 'key'),
      MAILROOM_ADMIN_TOKEN_FILE: path.join(secrets, 'token'),
    });
    try {
      const list = await fetch(`${serve.baseUrl}/api/v1/emails?account=${INBOX}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(list.status).toBe(200);
      const users = await fetch(`${serve.baseUrl}/admin/v1/users`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(users.status).toBe(200);
      expect(serve.stderr()).toContain('API key: the one given in MAILROOM_BOOTSTRAP_KEY');
    } finally {
      await serve.stop();
      fs.rmSync(ownDir, { recursive: true, force: true });
      fs.rmSync(secrets, { recursive: true, force: true });
    }
    for (const output of [serve.stdout(), serve.stderr()]) {
      expect(output).not.toContain(key);
      expect(output).not.toContain(token);
    }
  });
});
