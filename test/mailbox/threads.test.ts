import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { NotFound } from '../../src/mailbox/errors.js';
import { listEmails, listThreads, readThread } from '../../src/mailbox/reading/read.js';
import { inProcessInbox } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

// The HTTP door's own part (its paths, the 404) is test/e2e/threads.test.ts.
describe('threads built from received mail', () => {
  let box: InProcess;
  const day = (n: number) => new Date(Date.UTC(2026, 2, n, 12));

  beforeAll(async () => {
    box = await inProcessInbox('threads@mailroom.test');
  });
  afterAll(async () => box?.close());

  const emails = async (who = box.who, account = box.inbox.address) =>
    (await listEmails(box.deps, who, ListEmailsQuery.parse({ account, limit: 100 }))).emails;
  const bySubjectAndId = async (subject: string, messageId: string) =>
    (await emails()).find((e) => e.subject === subject && e.messageId === messageId)!;
  const mail = (fields: Parameters<InProcess['deliver']>[0]) =>
    box.deliver({ to: box.inbox.address, ...fields });

  it('joins replies by In-Reply-To, by References, and keeps unrelated mail apart', async () => {
    const root = '<root-1@example.com>';
    await mail({
      from: 'alice@example.com',
      subject: 'Project kickoff',
      text: 'Shall we start?',
      messageId: root,
      date: day(1),
    });
    await mail({
      from: 'bob@example.com',
      subject: 'Re: Project kickoff',
      text: 'Yes',
      messageId: '<reply-1@example.com>',
      inReplyTo: root,
      references: [root],
      date: day(2),
    });
    // References only, naming an unknown message and then a known one.
    await mail({
      from: 'carol@example.com',
      subject: 'AW: Project kickoff',
      text: 'Count me in',
      messageId: '<reply-2@example.com>',
      references: [root, '<reply-1@example.com>', '<never-seen@example.com>'],
      date: day(3),
    });
    await mail({
      from: 'dave@example.com',
      subject: 'Unrelated',
      text: 'Something else',
      messageId: '<other@example.com>',
      date: day(4),
    });

    const kickoff = await bySubjectAndId('Project kickoff', root);
    const reply = await bySubjectAndId('Re: Project kickoff', '<reply-1@example.com>');
    const aw = await bySubjectAndId('AW: Project kickoff', '<reply-2@example.com>');
    const other = await bySubjectAndId('Unrelated', '<other@example.com>');
    expect(reply.threadId).toBe(kickoff.threadId);
    expect(aw.threadId).toBe(kickoff.threadId);
    expect(other.threadId).not.toBe(kickoff.threadId);

    const thread = await readThread(box.deps, box.who, box.inbox.address, kickoff.threadId);
    expect(thread).toMatchObject({ threadId: kickoff.threadId, subject: 'Project kickoff' });
    expect(thread.messages.map((m) => m.messageId)).toEqual([
      root,
      '<reply-1@example.com>',
      '<reply-2@example.com>',
    ]);
    expect(thread.messages[1]).toMatchObject({ inReplyTo: root, references: [root] });

    const filtered = await listEmails(
      box.deps,
      box.who,
      ListEmailsQuery.parse({ account: box.inbox.address, threadId: kickoff.threadId }),
    );
    expect(filtered.emails).toHaveLength(3);
  });

  it('joins by normalised subject only with the same participants, when no header links them', async () => {
    await mail({ from: 'erin@example.com', subject: 'Lunch on Friday', text: 'Pizza?', date: day(5) });
    await mail({
      from: 'erin@example.com',
      subject: 'RE: Fwd: lunch on friday',
      text: 'Or sushi',
      date: day(6),
    });
    // Bcc: the message names other people only.
    await mail({
      from: 'stranger@example.com',
      to: 'someone-else@example.com',
      subject: 'Re: Lunch on Friday',
      text: 'Different people',
      date: day(7),
    });
    const all = await emails();
    const first = all.find((e) => e.subject === 'Lunch on Friday')!;
    const second = all.find((e) => e.subject === 'RE: Fwd: lunch on friday')!;
    const stranger = all.find((e) => e.subject === 'Re: Lunch on Friday')!;
    expect(second.threadId).toBe(first.threadId);
    expect(stranger.threadId).not.toBe(first.threadId);
  });

  it('does not join by subject after 30 days', async () => {
    await mail({
      from: 'frank@example.com',
      subject: 'Monthly numbers',
      text: 'January',
      date: new Date(Date.UTC(2025, 0, 1)),
    });
    await mail({
      from: 'frank@example.com',
      subject: 'Monthly numbers',
      text: 'March',
      date: new Date(Date.UTC(2025, 2, 15)),
    });
    const monthly = (await emails()).filter((e) => e.subject === 'Monthly numbers');
    expect(monthly).toHaveLength(2);
    expect(monthly[0]!.threadId).not.toBe(monthly[1]!.threadId);
  });

  it('summarises threads, most recent first, and pages them', async () => {
    const { threads, nextCursor } = await listThreads(box.deps, box.who, box.inbox.address, 100);
    const kickoff = threads.find((t) => t.subject === 'Project kickoff')!;
    expect(kickoff).toMatchObject({ messageCount: 3, unreadCount: 3, preview: 'Count me in' });
    expect(kickoff.participants).toEqual(
      expect.arrayContaining([
        'alice@example.com',
        'bob@example.com',
        'carol@example.com',
        box.inbox.address,
      ]),
    );
    expect(kickoff.lastDate).toBe(day(3).toISOString());
    expect(nextCursor).toBeNull();

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listThreads(box.deps, box.who, box.inbox.address, 2, cursor);
      seen.push(...page.threads.map((t) => t.threadId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(threads.map((t) => t.threadId));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('keeps threads per account, and finds no thread that is not there or not this inbox’s', async () => {
    const other = await box.addInbox('threader@mailroom.test', 'threader');
    await box.deliver(
      {
        from: 'alice@example.com',
        to: other.inbox.address,
        subject: 'Re: Project kickoff',
        text: 'For the other inbox',
        inReplyTo: '<root-1@example.com>',
        references: ['<root-1@example.com>'],
      },
      { to: [other.inbox] },
    );
    const [theirs] = await emails(other.who, other.inbox.address);
    const mine = await bySubjectAndId('Project kickoff', '<root-1@example.com>');
    expect(theirs!.threadId).not.toBe(mine.threadId);
    const read = (threadId: string) =>
      readThread(box.deps, box.who, box.inbox.address, threadId).catch((error: unknown) => error);
    expect(await read('thr_nope')).toBeInstanceOf(NotFound);
    expect(await read(theirs!.threadId)).toBeInstanceOf(NotFound);
  });
});
