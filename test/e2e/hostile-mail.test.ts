// Engines: SQLite only: hostile mail over SMTP (the DATA reply, a lone dot line and bare LFs in transfer, SMTPUTF8, 550 and 552); what is filed of hostile and broken mail and read back (unclosed multipart, a 1 MB header, wrong charsets, garbage, empty, NUL bytes, UTF-8 headers) is test/mailbox/hostile-mail.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp } from '../helpers/smtp-session.js';

const MAX_BYTES = 3 * 1024 * 1024;

describe('hostile and broken mail over SMTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ maxMessageBytes: MAX_BYTES });
  });
  afterAll(async () => server.stop());

  /** Sends over a bare SMTP session and returns the DATA reply with the uid it names. */
  async function deliver(raw: string | Buffer) {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const result = await smtp.send('sender@example.com', [server.inbox], raw);
    await smtp.close();
    const uid = Number(/stored (\d+)/.exec(result.data?.text ?? '')?.[1]);
    return { code: result.data?.code, uid };
  }

  /** The message must be listed, readable in full, and its source downloadable. */
  async function expectReadable(uid: number) {
    const read = await server.api(`/emails/${uid}?account=${server.inbox}`);
    expect(read.status).toBe(200);
    expect(read.json.success).toBe(true);
    const list = await server.api(`/emails?account=${server.inbox}&limit=100`);
    expect(list.status).toBe(200);
    expect(list.json.data.emails.map((e: { uid: number }) => e.uid)).toContain(uid);
    const raw = await server.api(`/emails/${uid}/raw?account=${server.inbox}`);
    expect(raw.status).toBe(200);
    return read.json.data.email;
  }

  it('keeps a message with NUL bytes, bare LFs and a lone dot line', async () => {
    const raw = Buffer.from(
      `From: nul@example.com\nTo: ${server.inbox}\nSubject: NUL\x00bytes\n\nline one\n.\nline\x00two\r\n`,
      'latin1',
    );
    const { code, uid } = await deliver(raw);
    expect(code).toBe(250);
    const email = await expectReadable(uid);
    expect(email.text).toContain('line one');
  });

  it('takes UTF-8 headers sent raw under SMTPUTF8', async () => {
    const raw = Buffer.from(
      `From: Jürgen <j@example.com>\r\nTo: ${server.inbox}\r\nSubject: Grüße 🎉\r\n` +
        'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nHallo Wölt\r\n',
      'utf8',
    );
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    expect((await smtp.command('MAIL FROM:<j@example.com> SMTPUTF8 BODY=8BITMIME')).code).toBe(250);
    expect((await smtp.command(`RCPT TO:<${server.inbox}>`)).code).toBe(250);
    const reply = await smtp.data(raw);
    await smtp.close();
    expect(reply.code).toBe(250);
    const uid = Number(/stored (\d+)/.exec(reply.text)?.[1]);
    expect(await expectReadable(uid)).toMatchObject({
      subject: 'Grüße 🎉',
      fromName: 'Jürgen',
      text: 'Hallo Wölt\n',
    });
  });

  it('answers 550 5.1.1 to a non-ASCII local part that is no inbox', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    await smtp.command('MAIL FROM:<a@example.com> SMTPUTF8');
    const rcpt = await smtp.command(`RCPT TO:<агент@${server.inbox.split('@')[1]}>`);
    await smtp.close();
    expect(rcpt.code).toBe(550);
  });

  it('answers 552 to a message over the SIZE limit and stores nothing', async () => {
    const before = (await server.api(`/emails?account=${server.inbox}&limit=100`)).json.data.emails.length;
    const big = `From: big@example.com\r\nTo: ${server.inbox}\r\nSubject: Too big\r\n\r\n${'y'.repeat(76)}\r\n`;
    const raw = big + `${'z'.repeat(998)}\r\n`.repeat(Math.ceil(MAX_BYTES / 1000) + 10);
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const result = await smtp.send('big@example.com', [server.inbox], raw);
    expect(result.data?.code).toBe(552);
    expect(result.data?.text).toMatch(/^5\.3\.4 /);
    // The session stays usable after the refusal.
    const after = await smtp.send('big@example.com', [server.inbox], 'Subject: Small\r\n\r\nok\r\n');
    expect(after.data?.code).toBe(250);
    await smtp.close();

    const emails = (await server.api(`/emails?account=${server.inbox}&limit=100`)).json.data.emails;
    expect(emails).toHaveLength(before + 1);
    expect(emails.map((e: { subject: string }) => e.subject)).not.toContain('Too big');
  });

  it('refuses at MAIL FROM a message declared bigger than SIZE', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    const mail = await smtp.command(`MAIL FROM:<big@example.com> SIZE=${MAX_BYTES + 1}`);
    expect(mail.code).toBe(552);
    await smtp.close();
  });
});
