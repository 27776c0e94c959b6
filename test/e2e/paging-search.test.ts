// Engines: SQLite only: the query string of GET /emails and its answers; what paging, search and the filters find is test/mailbox/paging-search.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

interface Listed {
  uid: number;
  subject: string;
  receivedAt: string;
}

describe('GET /emails: paging and searching an inbox over HTTP', () => {
  let server: TestServer;
  const TOTAL = 5;

  beforeAll(async () => {
    server = await startServer();
    for (let i = 0; i < TOTAL; i++) {
      await server.sendMail({
        from: i === 0 ? 'Ada Lovelace <ada@engine.example>' : `sender${i}@example.com`,
        to: server.inbox,
        subject: `Message number ${i}`,
        text: i === 2 ? 'The invoice is attached.' : `Body of message ${i}`,
        ...(i === 3 ? { attachments: [{ filename: 'x.txt', content: 'x' }] } : {}),
      });
    }
  });
  afterAll(async () => server.stop());

  const list = async (query: string) => {
    const res = await server.api(`/emails?account=${server.inbox}&${query}`);
    expect(res.status).toBe(200);
    return res.json.data as { emails: Listed[]; nextCursor: string | null };
  };
  const subjects = async (query: string) => (await list(query)).emails.map((e) => e.subject);

  it('pages with limit and cursor, newest first, and ends with nextCursor null', async () => {
    const uids: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      uids.push(...page.emails.map((e) => e.uid));
      cursor = page.nextCursor;
    } while (cursor);
    expect(uids).toHaveLength(TOTAL);
    expect(uids).toEqual([...uids].sort((a, b) => b - a));
    expect((await list('')).nextCursor).toBeNull();
  });

  it('takes the search and every filter from the query string', async () => {
    expect(await subjects('q=invoice')).toEqual(['Message number 2']);
    expect(await subjects(`q=${encodeURIComponent('"invoice" OR NEAR(*')}`)).toEqual([]);
    expect(await subjects('from=ada@engine')).toEqual(['Message number 0']);
    expect(await subjects('subject=number 4')).toEqual(['Message number 4']);
    expect(await subjects('hasAttachments=true')).toEqual(['Message number 3']);
    expect(await subjects('unread=false')).toEqual([]);
    expect(await subjects('from=%25')).toEqual([]);
    const all = (await list('')).emails;
    const since = all.find((e) => e.subject === 'Message number 0')!.receivedAt;
    expect((await list(`since=${since}`)).emails).toHaveLength(TOTAL);
    expect(await subjects(`before=${since}`)).toEqual([]);
  });

  it('answers 400 validation_error to a search with no letter or digit', async () => {
    const bad = await server.api(`/emails?account=${server.inbox}&q=${encodeURIComponent('!!!')}`);
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('validation_error');
  });
});
