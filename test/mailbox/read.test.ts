import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { NotFound } from '../../src/mailbox/errors.js';
import {
  listEmails,
  listFolders,
  readAttachment,
  readEmail,
  readRaw,
} from '../../src/mailbox/reading/read.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

// The HTTP door's own part (headers, status codes, the service routes, limits) is test/e2e/read-api.test.ts.
describe('reading stored mail', () => {
  let box: InProcess;
  let account: string;
  let uid: number;
  const longText = `${'Lorem ipsum dolor sit amet. '.repeat(40)}THE END`;

  beforeAll(async () => {
    box = await inProcessInbox('reader@mailroom.test');
    account = box.inbox.address;
    const [filed] = await box.deliver({
      from: 'Alice Example <alice@example.com>',
      to: account,
      cc: 'carol@example.com',
      replyTo: 'replies@example.com',
      subject: 'Quarterly report',
      text: longText,
      html: '<p>Lorem <b>ipsum</b></p>',
      attachments: [
        { filename: 'report.csv', content: 'a,b\n1,2\n', contentType: 'text/csv' },
        { filename: 'logo.png', content: Buffer.from('89504e47', 'hex'), cid: 'logo@x' },
      ],
    });
    uid = filed!.uid;
  });
  afterAll(async () => box?.close());

  const list = (query: Record<string, unknown> = {}) =>
    listEmails(box.deps, box.who, ListEmailsQuery.parse({ account, ...query }));
  const read = (folder?: string) => readEmail(box.deps, box.who, account, uid, folder);

  it('lists emails with text cut to 500 characters, no html, and attachment metadata', async () => {
    const page = await list();
    expect(page.nextCursor).toBeNull();
    const [email] = page.emails;
    expect(email).toMatchObject({
      uid,
      from: 'alice@example.com',
      fromName: 'Alice Example',
      to: [account],
      cc: ['carol@example.com'],
      replyTo: ['replies@example.com'],
      subject: 'Quarterly report',
      folder: 'INBOX',
      flags: [],
      labels: [],
      truncated: true,
      inReplyTo: null,
      references: [],
    });
    expect(email!.text).toHaveLength(500);
    expect(email!.html).toBeUndefined();
    expect(email!.messageId).toMatch(/^<.+>$/);
    expect(email!.threadId).toEqual(expect.any(String));
    expect(email!.preview.length).toBeLessThanOrEqual(200);
    expect(email!.size).toBeGreaterThan(0);
    expect(email!.attachments).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ filename: 'report.csv', contentType: 'text/csv', size: 8, inline: false }),
        expect.objectContaining({ filename: 'logo.png', contentType: 'image/png', contentId: 'logo@x' }),
      ]),
    );
    expect(email!.attachments).toHaveLength(2);
  });

  it('reads one email with full text and html, in INBOX by default or named in any case', async () => {
    const email = await read();
    expect(email.text).toContain('THE END');
    expect(email.truncated).toBeUndefined();
    expect(email.html).toContain('<b>ipsum</b>');
    expect((await read('inbox')).uid).toBe(uid);
  });

  it('does not change flags when an email is read', async () => {
    await read();
    expect((await list({ unread: 'true' })).emails.map((e) => e.uid)).toContain(uid);
  });

  it('gives back an attachment and the source as they arrived', async () => {
    const csv = (await read()).attachments.find((a) => a.filename === 'report.csv')!;
    const got = await readAttachment(box.deps, box.who, account, uid, csv.id);
    expect(got).toMatchObject({ filename: 'report.csv', contentType: expect.stringMatching(/^text\/csv/) });
    expect(got.content.toString()).toBe('a,b\n1,2\n');
    expect(await refusal(readAttachment(box.deps, box.who, account, uid, 'nope'))).toBeInstanceOf(NotFound);
    expect((await readRaw(box.deps, box.who, account, uid)).toString()).toContain(
      'Subject: Quarterly report',
    );
  });

  it('finds no email by an unknown uid, in another folder, or in an unknown folder', async () => {
    expect(await refusal(readEmail(box.deps, box.who, account, 99_999))).toBeInstanceOf(NotFound);
    expect(await refusal(read('Trash'))).toBeInstanceOf(NotFound);
    expect(await refusal(read('Nowhere'))).toBeInstanceOf(NotFound);
  });

  it('lists folders with totals and unread counts', async () => {
    const folders = await listFolders(box.deps, box.who, account);
    expect(folders.map((f) => f.name)).toEqual(
      expect.arrayContaining(['INBOX', 'Sent', 'Drafts', 'Trash', 'Spam']),
    );
    expect(folders.find((f) => f.name === 'INBOX')).toMatchObject({
      specialUse: '\\Inbox',
      total: 1,
      unread: 1,
    });
  });
});
