import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { listEmails, listThreads, readEmail, readThread } from '../../src/mailbox/reading/read.js';
import { inProcessInbox } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

const fixture = (name: string) =>
  fs.readFileSync(new URL(`../../fixtures/replies/${name}.eml`, import.meta.url));

function message(id: string, subject: string, text: string, to: string): string {
  return [
    'From: Bob <bob@example.net>',
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${id}@example.net>`,
    'Date: Tue, 03 Mar 2026 11:15:00 +0000',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    text.replace(/\n/g, '\r\n'),
  ].join('\r\n');
}

const sentence = 'We went through the figures again and the second quarter still looks right to us. ';
/** Texts whose list answer needs more than their first 500 characters: each case of toEmailView. */
const texts: Record<string, string> = {
  // New content longer than a list shows, a signature, then a long quoted history.
  long: `Hi Alice,\n\n${sentence.repeat(10)}\n\n-- \nBob Example\nHead of Finance\n\nOn Mon, 2 Mar 2026 at 09:00, Alice <alice@example.com> wrote:\n${`> ${sentence}\n`.repeat(60)}`,
  // Short new content above a long quote: extractedText is short, text is cut.
  shortReply: `Works for me.\n\nBob\n\nOn Mon, 2 Mar 2026 at 09:00, Alice <alice@example.com> wrote:\n${`> ${sentence}\n`.repeat(40)}`,
  short: 'See you on Thursday.\n\nBob',
  // Characters beyond UTF-16's 16 bits (two units each in JavaScript, one character in SQL).
  astral: `${'\u{1F600}'.repeat(300)}${'x'.repeat(300)}`,
  // The preview collapses whitespace: its 200 characters come from beyond the first 501.
  blankStart: `${' \n'.repeat(300)}${sentence.repeat(5)}`,
};

// A list reads what it shows of each text from columns filed with the message (migrations 013 and
// 017); rows filed before 013 get them from the upgrade to 017 (test/e2e/lean-upgrade.test.ts).
describe('list answers from the stored list columns', () => {
  let box: InProcess;
  let inboxId: number;
  beforeAll(async () => {
    box = await inProcessInbox('columns@mailroom.test');
    await box.deliverRaw(fixture('de-outlook-plain'));
    for (const [name, text] of Object.entries(texts))
      await box.deliverRaw(message(name, `case ${name}`, text, box.inbox.address));
    inboxId = box.inbox.id;
  });
  afterAll(() => box?.close());

  /** Every answer that shows messages as a list does: the page, the threads, each thread. */
  async function listAnswers() {
    const page = await list();
    const threads = await listThreads(box.deps, box.who, box.inbox.address, 20);
    const each = [];
    for (const t of threads.threads)
      each.push(await readThread(box.deps, box.who, box.inbox.address, t.threadId));
    return { page, threads, each };
  }
  const list = () =>
    listEmails(box.deps, box.who, ListEmailsQuery.parse({ account: box.inbox.address, limit: 50 }));
  const read = (uid: number) => readEmail(box.deps, box.who, box.inbox.address, uid);

  it('stores the extracted text only where it is not the start of the text', async () => {
    const rows = await box.deps.store.messages.list({ inboxId, limit: 50 });
    for (const listed of (await list()).emails) {
      const whole = await read(listed.uid);
      const sameStart = whole.extractedText.slice(0, 500) === whole.text.slice(0, 500);
      expect(rows.find((r) => r.uid === listed.uid)!.list_extracted_text === null).toBe(sameStart);
    }
  });

  it("answers from the stored columns, and the same where the extracted text is stored even as the text's start", async () => {
    const stored = (await box.deps.store.db.rawAll(
      'SELECT preview, list_extracted_text FROM messages WHERE inbox_id = ?',
      inboxId,
    )) as { preview: string | null; list_extracted_text: string | null }[];
    expect(stored).toHaveLength(Object.keys(texts).length + 1);
    // The preview is stored only where the list text cannot give it (a start of blank lines).
    expect(stored.filter((r) => r.preview !== null)).toHaveLength(1);
    // The extracted text is stored only when it is not the text's own start.
    expect(stored.filter((r) => r.list_extracted_text === null).length).toBeGreaterThan(0);
    expect(stored.filter((r) => r.list_extracted_text !== null).length).toBeGreaterThan(0);
    const withColumns = await listAnswers();
    const emails = withColumns.page.emails;
    const bySubject = (s: string) => emails.find((e) => e.subject === s)!;
    expect(bySubject('case long').truncated).toBe(true);
    expect(bySubject('case long').extractedText).toHaveLength(500);
    expect(bySubject('case shortReply').extractedText).toBe('Works for me.\n\nBob');
    expect(bySubject('case short').truncated).toBeUndefined();
    expect(bySubject('case blankStart').preview).toBe(sentence.repeat(5).slice(0, 200).trimEnd());

    // Rows filed by releases that stored the extracted text even when it was the text's start.
    await box.deps.store.db.rawRun(
      'UPDATE messages SET list_extracted_text = substr(list_text, 1, 500) WHERE inbox_id = ? AND list_extracted_text IS NULL',
      inboxId,
    );
    expect(await listAnswers()).toEqual(withColumns);
  });

  it('answers as the single read does, cut as a list cuts', async () => {
    for (const listed of (await list()).emails) {
      const whole = await read(listed.uid);
      expect(listed.text).toBe(whole.text.slice(0, 500));
      expect(listed.preview).toBe(whole.preview);
      expect(listed.extractedText).toBe(whole.extractedText.slice(0, 500));
    }
  });
});

describe('a list page reads what it shows of each text, not the whole text', () => {
  let box: InProcess;
  beforeAll(async () => {
    box = await inProcessInbox('big@mailroom.test');
    for (let i = 0; i < 3; i++)
      await box.deliverRaw(message(`big${i}`, `big ${i}`, sentence.repeat(200), box.inbox.address));
  });
  afterAll(() => box?.close());

  it('carries at most 501 characters of each text from the database', async () => {
    const rows = await box.deps.store.messages.list({ inboxId: box.inbox.id, limit: 50 });
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.list_text).toHaveLength(501);
    // Mail that quotes nothing: its extracted text is the text's start, not carried twice.
    for (const row of rows) expect(row.list_extracted_text).toBeNull();
  });
});
