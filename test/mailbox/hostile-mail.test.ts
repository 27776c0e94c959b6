import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { listEmails, readEmail, readRaw } from '../../src/mailbox/reading/read.js';
import { inProcessInbox } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

// What is filed of hostile and broken mail, and read back. The SMTP side (the DATA reply, 550 for
// a non-ASCII local part, 552 over SIZE, a lone dot line, SMTPUTF8) is test/e2e/hostile-mail.test.ts.
describe('hostile and broken mail', () => {
  let box: InProcess;
  let account: string;
  beforeAll(async () => {
    box = await inProcessInbox('agent@mailroom.test');
    account = box.inbox.address;
  });
  afterAll(async () => box?.close());

  /** Files the message and answers it as read, once it is listed and its source is exactly what came. */
  async function fileAndRead(raw: string | Buffer) {
    const [filed] = await box.deliverRaw(raw);
    const { uid } = filed!;
    const listed = await listEmails(box.deps, box.who, ListEmailsQuery.parse({ account, limit: 100 }));
    expect(listed.emails.map((e) => e.uid)).toContain(uid);
    const source = await readRaw(box.deps, box.who, account, uid);
    expect(source.equals(Buffer.isBuffer(raw) ? raw : Buffer.from(raw))).toBe(true);
    return readEmail(box.deps, box.who, account, uid);
  }

  it('keeps a multipart message whose boundary is never closed', async () => {
    const raw = [
      'From: broken@example.com',
      `To: ${account}`,
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
    const email = await fileAndRead(raw);
    expect(email.subject).toBe('Unclosed multipart');
    expect(email.text).toContain('The visible part');
  });

  it('keeps a message with a 1 MB header line', async () => {
    const long = 'x'.repeat(1024 * 1024);
    const raw = [
      'From: long@example.com',
      `To: ${account}`,
      'Subject: Long header',
      `X-Huge: ${long}`,
      '',
      'Body after a huge header',
      '',
    ].join('\r\n');
    const email = await fileAndRead(raw);
    expect(email.subject).toBe('Long header');
    expect(email.text).toContain('Body after a huge header');
  });

  it('keeps a message in a wrong or unknown charset, readable as text', async () => {
    const latin1 = Buffer.concat([
      Buffer.from(
        `From: charset@example.com\r\nTo: ${account}\r\nSubject: Wrong charset\r\n` +
          'Content-Type: text/plain; charset=utf-8\r\n\r\n',
      ),
      Buffer.from('Caf\xe9 cr\xe8me \xff\xfe\r\n', 'latin1'),
    ]);
    expect((await fileAndRead(latin1)).text).toContain('Caf');
    const unknown =
      `From: charset@example.com\r\nTo: ${account}\r\nSubject: =?x-klingon?Q?Qapla=27?=\r\n` +
      'Content-Type: text/plain; charset=x-klingon\r\n\r\nnuqneH\r\n';
    expect((await fileAndRead(unknown)).text).toContain('nuqneH');
  });

  it('keeps binary garbage with no headers at all', async () => {
    const email = await fileAndRead(crypto.randomBytes(64 * 1024));
    expect(typeof email.text).toBe('string');
    expect(email.messageId).toMatch(/^<.+>$/);
  });

  it('keeps an empty message and one with only headers', async () => {
    await fileAndRead('\r\n');
    expect((await fileAndRead(`From: a@example.com\r\nSubject: Nothing below\r\n`)).subject).toBe(
      'Nothing below',
    );
  });

  it('keeps a message with NUL bytes and bare LFs', async () => {
    const raw = Buffer.from(
      `From: nul@example.com\nTo: ${account}\nSubject: NUL\x00bytes\n\nline one\nline\x00two\r\n`,
      'latin1',
    );
    expect((await fileAndRead(raw)).text).toContain('line one');
  });

  it('reads UTF-8 headers raw and encoded (RFC 2047)', async () => {
    const raw = Buffer.from(
      `From: Jürgen <j@example.com>\r\nTo: ${account}\r\nSubject: Grüße 🎉\r\n` +
        'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nHallo Wölt\r\n',
      'utf8',
    );
    expect(await fileAndRead(raw)).toMatchObject({
      subject: 'Grüße 🎉',
      fromName: 'Jürgen',
      text: 'Hallo Wölt\n',
    });
    const encoded = `From: a@example.com\r\nTo: ${account}\r\nSubject: =?UTF-8?B?${Buffer.from('Привет').toString('base64')}?=\r\n\r\nx\r\n`;
    expect((await fileAndRead(encoded)).subject).toBe('Привет');
  });
});
