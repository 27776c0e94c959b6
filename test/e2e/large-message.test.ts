import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WITH_THREADS, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** Printable bytes, so the HTTP helper's text compares them exactly. */
const printable = (bytes: number): string => crypto.randomBytes(bytes).toString('base64url');

const part = (name: string, body: string): string =>
  `--b\r\nContent-Type: text/plain; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\n\r\n${body}\r\n`;

describe('a large inbound message (parsed on a thread, moved to the ingest thread)', () => {
  let server: TestServer;
  const bodies = [printable(300_000), printable(200_000), printable(100_000)];
  const raw =
    `From: sender@example.com\r\nTo: INBOX\r\nSubject: Large\r\nMessage-ID: <large@example.com>\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n` +
    `--b\r\nContent-Type: text/plain\r\n\r\nSee attached.\r\n` +
    bodies.map((body, i) => part(`part${i + 1}.txt`, body)).join('') +
    `--b--\r\n`;
  let uid: number;

  beforeAll(async () => {
    // The subject: the message crosses from the parse thread to the ingest thread whole.
    server = await startServer(WITH_THREADS);
    await server.sendRaw(raw.replace('To: INBOX', `To: ${server.inbox}`), {
      from: 'sender@example.com',
      to: [server.inbox],
    });
    uid = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails[0].uid;
  });
  afterAll(async () => server.stop());

  it('stores the exact raw message and lists every attachment with its exact size', async () => {
    const stored = await server.api(`/emails/${uid}/raw?account=${server.inbox}`);
    expect(stored.text.endsWith(raw.replace('To: INBOX', `To: ${server.inbox}`))).toBe(true);
    const email = (await server.api(`/emails/${uid}?account=${server.inbox}`)).json.data.email;
    expect(email.attachments.map((a: { size: number }) => a.size)).toEqual(bodies.map((b) => b.length));
  });

  it('downloads the second attachment as exactly its bytes', async () => {
    const res = await server.api(`/emails/${uid}/attachments/a2?account=${server.inbox}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(bodies[1]);
  });
});
