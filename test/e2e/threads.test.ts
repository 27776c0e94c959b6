import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

interface Listed {
  uid: number;
  subject: string;
  threadId: string;
  messageId: string;
}

describe('threads built from mail received over SMTP', () => {
  let server: TestServer;
  const day = (n: number) => new Date(Date.UTC(2026, 2, n, 12));

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server.stop());

  const emails = async (): Promise<Listed[]> =>
    (await server.api(`/emails?account=${server.inbox}&limit=100`)).json.data.emails;
  const bySubjectAndSender = async (subject: string, messageId: string) =>
    (await emails()).find((e) => e.subject === subject && e.messageId === messageId)!;

  it('joins replies by In-Reply-To, by References, and keeps unrelated mail apart', async () => {
    const root = '<root-1@example.com>';
    await server.sendMail({
      from: 'alice@example.com',
      to: server.inbox,
      subject: 'Project kickoff',
      text: 'Shall we start?',
      messageId: root,
      date: day(1),
    });
    await server.sendMail({
      from: 'bob@example.com',
      to: server.inbox,
      subject: 'Re: Project kickoff',
      text: 'Yes',
      messageId: '<reply-1@example.com>',
      inReplyTo: root,
      references: [root],
      date: day(2),
    });
    // References only, naming an unknown message and then a known one.
    await server.sendMail({
      from: 'carol@example.com',
      to: server.inbox,
      subject: 'AW: Project kickoff',
      text: 'Count me in',
      messageId: '<reply-2@example.com>',
      references: [root, '<reply-1@example.com>', '<never-seen@example.com>'],
      date: day(3),
    });
    await server.sendMail({
      from: 'dave@example.com',
      to: server.inbox,
      subject: 'Unrelated',
      text: 'Something else',
      messageId: '<other@example.com>',
      date: day(4),
    });

    const kickoff = await bySubjectAndSender('Project kickoff', root);
    const reply = await bySubjectAndSender('Re: Project kickoff', '<reply-1@example.com>');
    const aw = await bySubjectAndSender('AW: Project kickoff', '<reply-2@example.com>');
    const other = await bySubjectAndSender('Unrelated', '<other@example.com>');
    expect(reply.threadId).toBe(kickoff.threadId);
    expect(aw.threadId).toBe(kickoff.threadId);
    expect(other.threadId).not.toBe(kickoff.threadId);

    const thread = await server.api(`/threads/${kickoff.threadId}?account=${server.inbox}`);
    expect(thread.status).toBe(200);
    expect(thread.json.data).toMatchObject({ threadId: kickoff.threadId, subject: 'Project kickoff' });
    expect(thread.json.data.messages.map((m: Listed) => m.messageId)).toEqual([
      root,
      '<reply-1@example.com>',
      '<reply-2@example.com>',
    ]);
    expect(thread.json.data.messages[1]).toMatchObject({ inReplyTo: root, references: [root] });

    const filtered = await server.api(`/emails?account=${server.inbox}&threadId=${kickoff.threadId}`);
    expect(filtered.json.data.emails).toHaveLength(3);
  });

  it('joins by normalised subject only with the same participants, when no header links them', async () => {
    await server.sendMail({
      from: 'erin@example.com',
      to: server.inbox,
      subject: 'Lunch on Friday',
      text: 'Pizza?',
      date: day(5),
    });
    await server.sendMail({
      from: 'erin@example.com',
      to: server.inbox,
      subject: 'RE: Fwd: lunch on friday',
      text: 'Or sushi',
      date: day(6),
    });
    await server.sendMail({
      from: 'stranger@example.com',
      to: 'someone-else@example.com',
      bcc: server.inbox,
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
    await server.sendMail({
      from: 'frank@example.com',
      to: server.inbox,
      subject: 'Monthly numbers',
      text: 'January',
      date: new Date(Date.UTC(2025, 0, 1)),
    });
    await server.sendMail({
      from: 'frank@example.com',
      to: server.inbox,
      subject: 'Monthly numbers',
      text: 'March',
      date: new Date(Date.UTC(2025, 2, 15)),
    });
    const monthly = (await emails()).filter((e) => e.subject === 'Monthly numbers');
    expect(monthly).toHaveLength(2);
    expect(monthly[0]!.threadId).not.toBe(monthly[1]!.threadId);
  });

  it('summarises threads, most recent first, and pages them', async () => {
    const res = await server.api(`/threads?account=${server.inbox}&limit=100`);
    expect(res.status).toBe(200);
    const threads = res.json.data.threads as {
      threadId: string;
      subject: string;
      messageCount: number;
      unreadCount: number;
      participants: string[];
      lastDate: string;
      preview: string;
    }[];
    const kickoff = threads.find((t) => t.subject === 'Project kickoff')!;
    expect(kickoff).toMatchObject({ messageCount: 3, unreadCount: 3, preview: 'Count me in' });
    expect(kickoff.participants).toEqual(
      expect.arrayContaining(['alice@example.com', 'bob@example.com', 'carol@example.com', server.inbox]),
    );
    expect(kickoff.lastDate).toBe(day(3).toISOString());
    expect(res.json.data.nextCursor).toBeNull();

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await server.api(
        `/threads?account=${server.inbox}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.json.data.threads.map((t: { threadId: string }) => t.threadId));
      cursor = page.json.data.nextCursor;
    } while (cursor);
    expect(seen).toEqual(threads.map((t) => t.threadId));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('keeps threads per account, and answers 404 for an unknown thread', async () => {
    const other = await server.addUser('threader');
    await server.sendMail({
      from: 'alice@example.com',
      to: other.inbox,
      subject: 'Re: Project kickoff',
      text: 'For the other inbox',
      inReplyTo: '<root-1@example.com>',
      references: ['<root-1@example.com>'],
    });
    const theirs = (await server.api(`/emails?account=${other.inbox}`, { key: other.key })).json.data
      .emails[0] as Listed;
    const mine = await bySubjectAndSender('Project kickoff', '<root-1@example.com>');
    expect(theirs.threadId).not.toBe(mine.threadId);
    const res = await server.api(`/threads/thr_nope?account=${server.inbox}`);
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
    const crossed = await server.api(`/threads/${theirs.threadId}?account=${server.inbox}`);
    expect(crossed.status).toBe(404);
  });
});
