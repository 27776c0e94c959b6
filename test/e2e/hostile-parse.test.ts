// Engines: SQLite only: parsing on the parse threads (before anything is stored).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WITH_THREADS, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';

/** With the text part, the 5000 parts that are read. */
const ATTACHMENTS = 4999;

/**
 * Slow to parse on any parser (5000 parts, the most that are read) and, for the old
 * diagnosis, quadratic: a text part of `Content-Transfer-Encoding: base64` lines.
 */
function hostileMessage(to: string): Buffer {
  const lines = [
    'From: attacker@example.com',
    `To: ${to}`,
    'Subject: hostile',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="B"',
    '',
    '--B',
    'Content-Type: text/plain',
    '',
    'look at the attachments',
    ...Array<string>(6000).fill('Content-Transfer-Encoding: base64\r\n'),
  ];
  for (let i = 0; i < ATTACHMENTS; i++) {
    lines.push('--B', `Content-Type: application/octet-stream; name="f${i}.bin"`);
    lines.push('Content-Disposition: attachment', 'Content-Transfer-Encoding: base64', '');
    lines.push(Buffer.from(`attachment number ${i}`).toString('base64'));
  }
  return Buffer.from([...lines, '--B--', ''].join('\r\n'), 'latin1');
}

/** Sends over a bare SMTP session; resolves with the DATA reply, the uid it names and when it came. */
async function deliver(port: number, to: string, raw: string | Buffer) {
  const smtp = await openSmtp(port);
  const result = await smtp.send('sender@example.com', [to], raw);
  const at = performance.now();
  await smtp.close();
  return { code: result.data?.code, uid: Number(/stored (\d+)/.exec(result.data?.text ?? '')?.[1]), at };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; at: number }> {
  const value = await work();
  return { value, at: performance.now() };
}

/** A server under test starts its threads (tsx compiles them); measure once they are up. */
async function warmUp(server: TestServer): Promise<void> {
  await server.mailroom.deps.parser?.ready();
  const raw = rawMessage({ from: 'warm@example.com', to: server.inbox, subject: 'warm-up' });
  expect((await deliver(server.mailroom.smtp.port, server.inbox, raw)).code).toBe(250);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a hostile message does not stop the server while it is parsed', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The subject: parsing on a parse thread keeps the main thread answering.
    server = await startServer(WITH_THREADS);
    await warmUp(server);
  });
  afterAll(async () => server.stop());

  it('answers /healthz and stores a normal message meanwhile; the hostile one is stored whole', async () => {
    const started = performance.now();
    const hostile = deliver(server.mailroom.smtp.port, server.inbox, hostileMessage(server.inbox));
    await pause(300); // the message is on the wire and being parsed
    const health = await timed(() => fetch(`${server.baseUrl}/healthz`).then((r) => r.status));
    const normalSent = performance.now();
    const normal = await deliver(
      server.mailroom.smtp.port,
      server.inbox,
      rawMessage({ from: 'friend@example.com', to: server.inbox, subject: 'normal' }),
    );
    const done = await hostile;

    expect(done.code).toBe(250);
    expect(health.value).toBe(200);
    expect(normal.code).toBe(250);
    // Both were answered before the hostile message was done, the normal one in a fraction of the
    // hostile one's time (counted from when each was sent: the pause above is not the server's).
    expect(health.at).toBeLessThan(done.at);
    expect(normal.at).toBeLessThan(done.at);
    expect(normal.at - normalSent).toBeLessThan((done.at - started) / 2);

    const read = await server.api(`/emails/${done.uid}?account=${server.inbox}`);
    expect(read.json.data.email.subject).toBe('hostile');
    expect(read.json.data.email.attachments).toHaveLength(ATTACHMENTS);
  });

  it('serves one attachment of the hostile message, /healthz answering while it is read', async () => {
    const list = await server.api(`/emails?account=${server.inbox}&subject=hostile`);
    const uid = list.json.data.emails[0].uid as number;
    const started = performance.now();
    const download = timed(() =>
      server.api(`/emails/${uid}/attachments/a${ATTACHMENTS}?account=${server.inbox}`),
    );
    await pause(100);
    const health = await timed(() => fetch(`${server.baseUrl}/healthz`).then((r) => r.status));
    const file = await download;

    expect(file.value.status).toBe(200);
    expect(file.value.text).toBe(`attachment number ${ATTACHMENTS - 1}`);
    expect(file.value.headers.get('content-disposition')).toContain(`f${ATTACHMENTS - 1}.bin`);
    expect(health.value).toBe(200);
    expect(health.at).toBeLessThan(file.at);
    expect(health.at - started).toBeLessThan((file.at - started) / 2);
  });
});

describe('a parse past its deadline', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The deadline stops a parse thread; without the threads nothing would stop the parse.
    server = await startServer({ ...WITH_THREADS, parseDeadlineMs: 500 });
    await warmUp(server);
  });
  afterAll(async () => server.stop());

  it('stores the message from its headers (250); mail parsed beside it or later is read in full', async () => {
    const pending = deliver(server.mailroom.smtp.port, server.inbox, hostileMessage(server.inbox));
    const beside = Array.from({ length: 4 }, (_, i) =>
      deliver(
        server.mailroom.smtp.port,
        server.inbox,
        rawMessage({ from: 'friend@example.com', to: server.inbox, subject: `beside ${i}`, body: 'whole' }),
      ),
    );
    const hostile = await pending;
    expect(hostile.code).toBe(250);
    for (const { code, uid } of await Promise.all(beside)) {
      expect(code).toBe(250);
      const email = await server.api(`/emails/${uid}?account=${server.inbox}`);
      expect(email.json.data.email.text).toContain('whole');
    }
    const read = await server.api(`/emails/${hostile.uid}?account=${server.inbox}`);
    expect(read.json.data.email.subject).toBe('hostile');
    expect(read.json.data.email.from).toBe('attacker@example.com');
    expect(read.json.data.email.attachments).toEqual([]);

    const attachment = await server.api(`/emails/${hostile.uid}/attachments/a1?account=${server.inbox}`);
    expect(attachment.status).toBe(422);

    const normal = await deliver(
      server.mailroom.smtp.port,
      server.inbox,
      rawMessage({ from: 'friend@example.com', to: server.inbox, subject: 'after', body: 'parsed fully' }),
    );
    expect(normal.code).toBe(250);
    const after = await server.api(`/emails/${normal.uid}?account=${server.inbox}`);
    expect(after.json.data.email.text).toContain('parsed fully');
  });
});
