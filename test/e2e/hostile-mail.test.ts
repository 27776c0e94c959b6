import crypto from 'node:crypto';
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

  it('keeps a multipart message whose boundary is never closed', async () => {
    const raw = [
      'From: broken@example.com',
      `To: ${server.inbox}`,
      'Subject: Unclosed multipart',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="XYZ"',
      '',
      '--XYZ',
      'Content-Type: text/plain',
      '',
      'The visible part',
      '--XYZ',
      'Content-Type: application/pdf; name="a.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      'JVBERi0xLjQK!!!not base64 at all###',
    ].join('\r\n');
    const { code, uid } = await deliver(raw);
    expect(code).toBe(250);
    const email = await expectReadable(uid);
    expect(email.subject).toBe('Unclosed multipart');
    expect(email.text).toContain('The visible part');
  });

  it('keeps a message with a 1 MB header line', async () => {
    const long = 'x'.repeat(1024 * 1024);
    const raw = [
      'From: long@example.com',
      `To: ${server.inbox}`,
      'Subject: Long header',
      `X-Huge: ${long}`,
      '',
      'Body after a huge header',
      '',
    ].join('\r\n');
    const { code, uid } = await deliver(raw);
    expect(code).toBe(250);
    const email = await expectReadable(uid);
    expect(email.subject).toBe('Long header');
    expect(email.text).toContain('Body after a huge header');
  });

  it('keeps a message in a wrong or unknown charset, readable as text', async () => {
    const latin1 = Buffer.concat([
      Buffer.from(
        `From: charset@example.com\r\nTo: ${server.inbox}\r\nSubject: Wrong charset\r\n` +
          'Content-Type: text/plain; charset=utf-8\r\n\r\n',
      ),
      Buffer.from('Caf\xe9 cr\xe8me \xff\xfe\r\n', 'latin1'),
    ]);
    const first = await deliver(latin1);
    expect(first.code).toBe(250);
    expect((await expectReadable(first.uid)).text).toContain('Caf');

    const unknown =
      `From: charset@example.com\r\nTo: ${server.inbox}\r\nSubject: =?x-klingon?Q?Qapla=27?=\r\n` +
      'Content-Type: text/plain; charset=x-klingon\r\n\r\nnuqneH\r\n';
    const second = await deliver(unknown);
    expect(second.code).toBe(250);
    expect((await expectReadable(second.uid)).text).toContain('nuqneH');
  });

  it('keeps binary garbage with no headers at all', async () => {
    const garbage = crypto.randomBytes(64 * 1024);
    const { code, uid } = await deliver(garbage);
    expect(code).toBe(250);
    const email = await expectReadable(uid);
    expect(typeof email.text).toBe('string');
    expect(email.messageId).toMatch(/^<.+>$/);
  });

  it('keeps an empty message and one with only headers', async () => {
    const empty = await deliver('\r\n');
    expect(empty.code).toBe(250);
    await expectReadable(empty.uid);
    const headersOnly = await deliver(`From: a@example.com\r\nSubject: Nothing below\r\n`);
    expect(headersOnly.code).toBe(250);
    expect((await expectReadable(headersOnly.uid)).subject).toBe('Nothing below');
  });

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

  it('reads UTF-8 headers sent raw (SMTPUTF8) and encoded (RFC 2047)', async () => {
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

    const encoded = await deliver(
      `From: a@example.com\r\nTo: ${server.inbox}\r\nSubject: =?UTF-8?B?${Buffer.from('Привет').toString('base64')}?=\r\n\r\nx\r\n`,
    );
    expect((await expectReadable(encoded.uid)).subject).toBe('Привет');
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
