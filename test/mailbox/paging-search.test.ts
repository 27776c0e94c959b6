import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { MailroomError } from '../../src/mailbox/errors.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import { inProcessInbox } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

// The HTTP door's own part (query strings, status codes) is test/e2e/paging-search.test.ts.
describe('paging through an inbox and searching it', () => {
  let box: InProcess;
  const TOTAL = 57;
  /** Received a second apart, in June; each dated a day after the one before, from January 1. */
  const received = (i: number) => new Date(Date.UTC(2026, 5, 1, 0, 0, i));

  beforeAll(async () => {
    box = await inProcessInbox('pager@mailroom.test');
    for (let i = 0; i < TOTAL; i++) {
      await box.deliver(
        {
          from: i % 3 === 0 ? 'Ada Lovelace <ada@engine.example>' : `sender${i}@example.com`,
          to: box.inbox.address,
          subject: `Message number ${i}`,
          text: i === 7 ? 'The invoice for the crème brûlée order is attached.' : `Body of message ${i}`,
          date: new Date(Date.UTC(2026, 0, 1 + i)),
          ...(i === 11 ? { attachments: [{ filename: 'x.txt', content: 'x' }] } : {}),
        },
        { receivedAt: received(i) },
      );
    }
  });
  afterAll(async () => box?.close());

  const list = (query: Record<string, unknown>) =>
    listEmails(box.deps, box.who, ListEmailsQuery.parse({ account: box.inbox.address, ...query }));
  const subjects = async (query: Record<string, unknown>) => (await list(query)).emails.map((e) => e.subject);

  async function collect(
    query: Record<string, unknown>,
    limit: number,
    from: string | null = null,
  ): Promise<{ uids: number[]; pages: number }> {
    const uids: number[] = [];
    let cursor = from;
    let pages = 0;
    do {
      const page = await list({ ...query, limit, ...(cursor ? { cursor } : {}) });
      uids.push(...page.emails.map((e) => e.uid));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    return { uids, pages };
  }

  it('pages through every message newest first with no gap or duplicate', async () => {
    for (const limit of [1, 7, 20, 57, 100]) {
      const { uids, pages } = await collect({}, limit);
      expect(uids).toHaveLength(TOTAL);
      expect(new Set(uids).size).toBe(TOTAL);
      expect(uids).toEqual([...uids].sort((a, b) => b - a));
      expect(pages).toBe(Math.max(1, Math.ceil(TOTAL / limit)));
    }
  });

  it('defaults to 20 items and ends with nextCursor null', async () => {
    const first = await list({});
    expect(first.emails).toHaveLength(20);
    expect(first.nextCursor).toEqual(expect.any(String));
    const all = await list({ limit: 100 });
    expect(all.emails).toHaveLength(TOTAL);
    expect(all.nextCursor).toBeNull();
  });

  it('finds messages by words in the body, subject and addresses', async () => {
    expect(await subjects({ q: 'invoice' })).toEqual(['Message number 7']);
    expect(await subjects({ q: 'creme brulee' })).toEqual(['Message number 7']);
    expect((await list({ q: 'invoi' })).emails).toHaveLength(1);
    expect(await subjects({ q: 'number 42' })).toEqual(['Message number 42']);
    const byName = await list({ q: 'lovelace', limit: 100 });
    expect(byName.emails).toHaveLength(Math.ceil(TOTAL / 3));
    expect(byName.emails.every((e) => e.from === 'ada@engine.example')).toBe(true);
    expect((await list({ q: 'nothing-like-this-anywhere' })).emails).toEqual([]);
  });

  it('treats search syntax as plain words, and pages search results', async () => {
    expect((await list({ q: '"invoice" OR NEAR(*' })).emails).toEqual([]);
    expect((await list({ q: 'invoice)' })).emails).toHaveLength(1);
    const refused = await list({ q: '!!!' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MailroomError);
    expect(refused).toMatchObject({ code: 'validation_error' });
    const { uids } = await collect({ q: 'body' }, 4);
    expect(uids).toHaveLength(TOTAL - 1);
    expect(new Set(uids).size).toBe(uids.length);
  });

  it('filters by sender, subject, arrival time, attachments and read state', async () => {
    expect((await list({ from: 'ada@engine', limit: 100 })).emails).toHaveLength(Math.ceil(TOTAL / 3));
    expect((await subjects({ subject: 'number 5', limit: 100 })).sort()).toEqual([
      'Message number 5',
      'Message number 50',
      'Message number 51',
      'Message number 52',
      'Message number 53',
      'Message number 54',
      'Message number 55',
      'Message number 56',
    ]);
    // By arrival, not the Date header.
    const dated = await subjects({ since: '2026-01-03T00:00:00Z', limit: 100 });
    expect(dated).toContain('Message number 0'); // dated 2026-01-01, received in June
    const window = await subjects({ since: received(2).toISOString(), before: received(4).toISOString() });
    expect(window).toEqual(['Message number 3', 'Message number 2']);
    expect(await subjects({ hasAttachments: 'true' })).toEqual(['Message number 11']);
    expect((await list({ unread: 'false' })).emails).toEqual([]);
    expect((await list({ from: '%' })).emails).toEqual([]);
  });

  // Last: it adds a message.
  it('keeps a cursor stable when new mail arrives between pages', async () => {
    const first = await list({ limit: 10 });
    await box.deliver({
      from: 'late@example.com',
      to: box.inbox.address,
      subject: 'Arrived late',
      text: 'x',
    });
    const rest = await collect({}, 10, first.nextCursor);
    const seen = [...first.emails.map((e) => e.uid), ...rest.uids];
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(TOTAL);
  });
});
