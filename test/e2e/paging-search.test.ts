import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

interface Listed {
  uid: number;
  subject: string;
  from: string;
  receivedAt: string;
}

describe('paging through an inbox and searching it', () => {
  let server: TestServer;
  const TOTAL = 57;

  beforeAll(async () => {
    server = await startServer();
    for (let i = 0; i < TOTAL; i++) {
      await server.sendMail({
        from: i % 3 === 0 ? 'Ada Lovelace <ada@engine.example>' : `sender${i}@example.com`,
        to: server.inbox,
        subject: `Message number ${i}`,
        text: i === 7 ? 'The invoice for the crème brûlée order is attached.' : `Body of message ${i}`,
        date: new Date(Date.UTC(2026, 0, 1 + i)),
        ...(i === 11 ? { attachments: [{ filename: 'x.txt', content: 'x' }] } : {}),
      });
    }
  });
  afterAll(async () => server.stop());

  const list = async (query: string) => {
    const res = await server.api(`/emails?account=${server.inbox}&${query}`);
    expect(res.status).toBe(200);
    return res.json.data as { emails: Listed[]; nextCursor: string | null };
  };

  async function collect(
    query: string,
    limit: number,
    from: string | null = null,
  ): Promise<{ uids: number[]; pages: number }> {
    const uids: number[] = [];
    let cursor = from;
    let pages = 0;
    do {
      const page = await list(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      uids.push(...page.emails.map((e) => e.uid));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    return { uids, pages };
  }

  it('pages through every message newest first with no gap or duplicate', async () => {
    for (const limit of [1, 7, 20, 57, 100]) {
      const { uids, pages } = await collect('', limit);
      expect(uids).toHaveLength(TOTAL);
      expect(new Set(uids).size).toBe(TOTAL);
      expect(uids).toEqual([...uids].sort((a, b) => b - a));
      expect(pages).toBe(Math.max(1, Math.ceil(TOTAL / limit)));
    }
  });

  it('defaults to 20 items and ends with nextCursor null', async () => {
    const first = await list('');
    expect(first.emails).toHaveLength(20);
    expect(first.nextCursor).toEqual(expect.any(String));
    const all = await list('limit=100');
    expect(all.emails).toHaveLength(TOTAL);
    expect(all.nextCursor).toBeNull();
  });

  it('keeps a cursor stable when new mail arrives between pages', async () => {
    const first = await list('limit=10');
    await server.sendMail({ from: 'late@example.com', to: server.inbox, subject: 'Arrived late', text: 'x' });
    const rest = await collect('', 10, first.nextCursor);
    const seen = [...first.emails.map((e) => e.uid), ...rest.uids];
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(TOTAL);
  });

  it('finds messages by words in the body, subject and addresses', async () => {
    const body = await list('q=invoice');
    expect(body.emails.map((e) => e.subject)).toEqual(['Message number 7']);
    const accentless = await list('q=creme brulee');
    expect(accentless.emails.map((e) => e.subject)).toEqual(['Message number 7']);
    const prefix = await list('q=invoi');
    expect(prefix.emails).toHaveLength(1);
    const bySubject = await list('q=number 42');
    expect(bySubject.emails.map((e) => e.subject)).toEqual(['Message number 42']);
    const byName = await list('q=lovelace&limit=100');
    expect(byName.emails).toHaveLength(Math.ceil(TOTAL / 3));
    expect(byName.emails.every((e) => e.from === 'ada@engine.example')).toBe(true);
    expect((await list('q=nothing-like-this-anywhere')).emails).toEqual([]);
  });

  it('treats search syntax as plain words, and pages search results', async () => {
    expect((await list('q=' + encodeURIComponent('"invoice" OR NEAR(*'))).emails).toEqual([]);
    expect((await list('q=' + encodeURIComponent('invoice)'))).emails).toHaveLength(1);
    const bad = await server.api(`/emails?account=${server.inbox}&q=${encodeURIComponent('!!!')}`);
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('validation_error');
    const { uids } = await collect('q=body', 4);
    expect(uids).toHaveLength(TOTAL - 1);
    expect(new Set(uids).size).toBe(uids.length);
  });

  it('filters by sender, subject, arrival time, attachments and read state', async () => {
    expect((await list('from=ada@engine&limit=100')).emails).toHaveLength(Math.ceil(TOTAL / 3));
    expect((await list('subject=number 5&limit=100')).emails.map((e) => e.subject).sort()).toEqual([
      'Message number 5',
      'Message number 50',
      'Message number 51',
      'Message number 52',
      'Message number 53',
      'Message number 54',
      'Message number 55',
      'Message number 56',
    ]);
    // By arrival, not the Date header (each message here is dated a day after the one before).
    const all = (await list('limit=100')).emails;
    const received = (i: number) => all.find((e) => e.subject === `Message number ${i}`)!.receivedAt;
    const dated = (await list('since=2026-01-03T00:00:00Z&limit=100')).emails.map((e) => e.subject);
    expect(dated).toContain('Message number 0'); // dated 2026-01-01, received now
    const window = await list(`since=${received(2)}&before=${received(4)}`);
    expect(window.emails.map((e) => e.subject)).toEqual(['Message number 3', 'Message number 2']);
    expect((await list('hasAttachments=true')).emails.map((e) => e.subject)).toEqual(['Message number 11']);
    expect((await list('unread=false')).emails).toEqual([]);
    expect((await list('from=%25')).emails).toEqual([]);
  });
});
