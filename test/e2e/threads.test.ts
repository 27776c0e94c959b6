// Engines: SQLite only: the threads' paths and answers over HTTP; how mail is grouped into threads is test/mailbox/threads.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('GET /threads and /threads/{id}', () => {
  let server: TestServer;
  const root = '<root-1@example.com>';

  beforeAll(async () => {
    server = await startServer();
    await server.sendMail({
      from: 'alice@example.com',
      to: server.inbox,
      subject: 'Kickoff',
      text: 'Start?',
      messageId: root,
    });
    await server.sendMail({
      from: 'bob@example.com',
      to: server.inbox,
      subject: 'Re: Kickoff',
      text: 'Yes',
      inReplyTo: root,
      references: [root],
    });
    await server.sendMail({ from: 'dave@example.com', to: server.inbox, subject: 'Unrelated', text: 'Else' });
  });
  afterAll(async () => server.stop());

  it('lists threads with a cursor, and reads one with its messages oldest first', async () => {
    const seen: { threadId: string; subject: string; messageCount: number }[] = [];
    let cursor: string | null = null;
    do {
      const page = await server.api(
        `/threads?account=${server.inbox}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.json.data.threads);
      cursor = page.json.data.nextCursor;
    } while (cursor);
    expect(seen.map((t) => t.subject)).toEqual(['Unrelated', 'Kickoff']);
    const kickoff = seen[1]!;
    expect(kickoff.messageCount).toBe(2);

    const thread = await server.api(`/threads/${kickoff.threadId}?account=${server.inbox}`);
    expect(thread.status).toBe(200);
    expect(thread.json.data).toMatchObject({ threadId: kickoff.threadId, subject: 'Kickoff' });
    expect(thread.json.data.messages.map((m: { subject: string }) => m.subject)).toEqual([
      'Kickoff',
      'Re: Kickoff',
    ]);
    const filtered = await server.api(`/emails?account=${server.inbox}&threadId=${kickoff.threadId}`);
    expect(filtered.json.data.emails).toHaveLength(2);
  });

  it("answers 404 not_found for an unknown thread and for another account's", async () => {
    const other = await server.addUser('threader');
    await server.sendMail({ from: 'alice@example.com', to: other.inbox, subject: 'Theirs', text: 'x' });
    const theirs = (await server.api(`/emails?account=${other.inbox}`, { key: other.key })).json.data
      .emails[0];
    const res = await server.api(`/threads/thr_nope?account=${server.inbox}`);
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
    expect((await server.api(`/threads/${theirs.threadId}?account=${server.inbox}`)).status).toBe(404);
  });
});
