import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WITH_THREADS, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import { testPostgres } from '../helpers/test-postgres.js';

interface Sent {
  text: string;
  /** Sent between BEGIN and COMMIT on its connection. */
  inTransaction: boolean;
}

/** The SQL of a pg query call: its first argument, a text or a config with one. */
const textOf = (first: unknown): string =>
  typeof first === 'string' ? first : String((first as { text?: string }).text);

/**
 * Every statement pg sends while `work` runs, as PostgreSQL receives it. pg has no pipelining:
 * each is a round trip, and inside a transaction each waits for the one before.
 */
async function statementsOf(work: () => Promise<void>): Promise<Sent[]> {
  const sent: Sent[] = [];
  const inTransaction = new WeakSet<object>();
  const query = pg.Client.prototype.query;
  // pg's query has many overloads: the wrapper takes and hands on whatever it is given.
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = textOf(args[0]);
    if (/^\s*BEGIN\b/i.test(text)) {
      inTransaction.add(this);
      sent.push({ text, inTransaction: false });
    } else if (/^\s*(COMMIT|ROLLBACK)\b/i.test(text)) inTransaction.delete(this);
    else sent.push({ text, inTransaction: inTransaction.has(this) });
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent;
}

/** SMTP deliveries of `count` messages at once, each on its own connection; their replies. */
async function sendAtOnce(server: TestServer, count: number, subject = (i: number) => `batch ${i}`) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const smtp = await openSmtp(server.mailroom.smtp.port);
      try {
        const raw = rawMessage({ from: 'alice@example.com', to: server.inbox, subject: subject(i) });
        return (await smtp.send('alice@example.com', [server.inbox], raw)).data?.code;
      } finally {
        await smtp.close();
      }
    }),
  );
}

const count = (sent: Sent[], pattern: RegExp) =>
  sent.filter((s) => s.inTransaction && pattern.test(s.text)).length;

/**
 * A folder or inbox read by a request or a message (background sweeps excluded by their text;
 * the key's own row names its reach in an `inboxes` column and is no look-up of an inbox).
 */
const isLookup = (text: string) =>
  /^\s*select\b/i.test(text) &&
  /\b(inboxes|folders)\b/i.test(text) &&
  !/"kind"|\\Trash|"api_keys"/.test(text);

// The round trips that set the speed of a page and of the group commit on PostgreSQL
// (docs/decisions/postgresql-performance.md): what a change adds here shows in the bench.
describe('round trips on PostgreSQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      databaseUrl: await (await testPostgres()).createDatabase(),
      // The group commit on this thread, where the statements are counted (the ingest thread,
      // the default, runs the same store code on its own connection).
      ingestThread: false,
    });
  });
  afterAll(async () => server?.stop());
  afterEach(() => expect(server.mailroom.db.engine).toBe('postgres'));

  it('files mail with one lookup for its inbox and folder, at RCPT TO, outside the group commit', async () => {
    const count = 20;
    const sent = await statementsOf(async () => {
      const replies = await sendAtOnce(server, count);
      expect(replies).toEqual(replies.map(() => 250));
    });
    const list = await server.api(`/emails?account=${encodeURIComponent(server.inbox)}&limit=100`);
    expect(list.json.data.emails).toHaveLength(count);
    // The recipient's inbox and its INBOX are read in one statement at RCPT TO, beside the other
    // sessions' work: not in the chain of statements every message of a batch waits on (the
    // uid row lock is held through it), and not once more for the folder.
    const lookups = sent.filter((s) => isLookup(s.text));
    expect(lookups.filter((s) => s.inTransaction)).toEqual([]);
    expect(lookups).toHaveLength(count);
  });

  it('reads the inbox and folder of a page of mail in one statement', async () => {
    const pages = 10;
    const account = encodeURIComponent(server.inbox);
    const sent = await statementsOf(async () => {
      for (let i = 0; i < pages; i++) {
        expect((await server.api(`/emails?account=${account}&limit=5`)).status).toBe(200);
      }
    });
    expect(sent.map((s) => s.text).filter(isLookup)).toHaveLength(pages);
    // The same answers as before: another folder by name, a standard folder by another client's
    // name, an unknown folder, another user's inbox.
    expect((await server.api(`/emails?account=${account}&folder=spam`)).json.data.emails).toEqual([]);
    expect((await server.api(`/emails?account=${account}&folder=Junk`)).status).toBe(200);
    expect((await server.api(`/emails?account=${account}&folder=nope`)).json.error.code).toBe('not_found');
    expect((await server.api(`/emails?account=someone@else.test`)).status).toBe(403);
  });

  it("starts a page's inbox and folder look-up beside the key's, and still answers only its owner", async () => {
    const account = encodeURIComponent(server.inbox);
    const events: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = textOf(args[0]);
      const name = /from "api_keys"/i.test(text) ? 'key' : isLookup(text) ? 'inbox' : undefined;
      if (name) {
        events.push(`${name} sent`);
        // pg.Pool hands a callback; a client called directly answers a promise.
        const last = args.length - 1;
        const callback = args[last];
        if (typeof callback === 'function')
          args[last] = (...answer: unknown[]) => {
            events.push(`${name} answered`);
            return (callback as (...a: unknown[]) => unknown)(...answer);
          };
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      expect((await server.api(`/emails?account=${account}&limit=5`)).status).toBe(200);
    } finally {
      pg.Client.prototype.query = query;
    }
    // Both sent before either answers: one round trip's wait, not two.
    expect(events.slice(0, 2).sort()).toEqual(['inbox sent', 'key sent']);
    expect(events).toHaveLength(4);
    // A look-up started before the key was known answers nobody but the inbox's owner.
    const noKey = await fetch(`${server.baseUrl}/api/v1/emails?account=${account}`);
    expect(noKey.status).toBe(401);
    const mallory = await server.addUser('mallory');
    const stolen = await server.api(`/emails?account=${account}`, { key: mallory.key });
    expect(stolen.status).toBe(403);
    // A differently written address or folder is looked up again after the key, as before.
    const upper = await server.api(
      `/emails?account=${encodeURIComponent(` ${server.inbox.toUpperCase()} `)}&folder=inbox`,
    );
    expect(upper.status).toBe(200);
  });

  it("counts a request against its key's rate limit in the key's own statement", async () => {
    const account = encodeURIComponent(server.inbox);
    const remaining: number[] = [];
    const sent = await statementsOf(async () => {
      for (let i = 0; i < 3; i++) {
        const page = await server.api(`/emails?account=${account}&limit=1`);
        expect(page.status).toBe(200);
        remaining.push(Number(page.headers.get('ratelimit-remaining')));
      }
    });
    // One round trip for the key and its count (beside the inbox's), then the page: not a second
    // one in a row for the count. (Its last use is noted once a minute, apart.)
    const texts = sent.map((s) => s.text).filter((t) => !/^\s*update "api_keys"/i.test(t));
    const counts = texts.filter((t) => /insert into rate_windows/i.test(t));
    expect(counts).toHaveLength(3);
    for (const text of counts) expect(text).toMatch(/from "api_keys"/i);
    // Counted as before: one request each.
    expect(remaining).toEqual([remaining[0], remaining[0]! - 1, remaining[0]! - 2]);
  });

  it("asks for a page's attachments and labels only for the mail that has some", async () => {
    const account = encodeURIComponent(server.inbox);
    const page = (sent: Sent[]) =>
      sent.map((s) => s.text).filter((t) => /from "(attachments|message_labels)"/i.test(t));
    // A page of plain mail: the key, the inbox and folder, the page; nothing for attachments or labels.
    expect(await sendAtOnce(server, 3, (i) => `plain ${i}`)).toEqual([250, 250, 250]);
    const plain = await statementsOf(async () => {
      expect((await server.api(`/emails?account=${account}&limit=3`)).status).toBe(200);
    });
    expect(page(plain)).toEqual([]);
    // An inline image only (has_attachments is 0 for it) and a label on another message: both
    // still show on the page, each asked for the one message that has it.
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const image = Buffer.from('GIF89a\x01\x00\x01\x00').toString('base64');
    const related = [
      `From: alice@example.com`,
      `To: ${server.inbox}`,
      'Subject: inline only',
      'MIME-Version: 1.0',
      'Content-Type: multipart/related; boundary="b"',
      '',
      '--b',
      'Content-Type: text/html',
      '',
      '<img src="cid:logo@x">',
      '--b',
      'Content-Type: image/gif; name="logo.gif"',
      'Content-Disposition: inline; filename="logo.gif"',
      'Content-ID: <logo@x>',
      'Content-Transfer-Encoding: base64',
      '',
      image,
      '--b--',
      '',
    ].join('\r\n');
    expect((await smtp.send('alice@example.com', [server.inbox], related)).data?.code).toBe(250);
    await smtp.close();
    const before = (await server.api(`/emails?account=${account}&limit=5`)).json.data.emails;
    const plainUid = before.find((e: { subject: string }) => e.subject === 'plain 1').uid as number;
    expect((await server.api('/labels', { body: { name: 'keep' } })).status).toBe(201);
    const labelled = await server.api(`/emails/${plainUid}/labels?account=${account}`, {
      body: { labels: ['keep'] },
    });
    expect(labelled.status).toBe(200);
    let emails: { subject: string; attachments: { inline: boolean }[]; labels: { name: string }[] }[] = [];
    const mixed = await statementsOf(async () => {
      emails = (await server.api(`/emails?account=${account}&limit=5`)).json.data.emails;
    });
    const bySubject = new Map(emails.map((e) => [e.subject, e]));
    expect(bySubject.get('inline only')?.attachments).toMatchObject([{ inline: true }]);
    expect(bySubject.get('plain 1')?.labels.map((l) => l.name)).toEqual(['keep']);
    expect(bySubject.get('plain 2')?.attachments).toEqual([]);
    expect(bySubject.get('plain 2')?.labels).toEqual([]);
    // One message id each, not the page's five.
    expect(page(mixed).map((t) => t.match(/\$\d+/g)?.length)).toEqual([1, 1]);
  });

  it('writes a batch of mail with one statement per table and one uid reservation, leaving no uid unused', async () => {
    const before = (await server.api(`/emails?account=${encodeURIComponent(server.inbox)}&limit=100`)).json
      .data.emails.length as number;
    const messages = 20;
    const sent = await statementsOf(async () => {
      const replies = await sendAtOnce(server, messages, (i) => `block ${i}`);
      expect(replies).toEqual(replies.map(() => 250));
    });
    const batches = sent.filter((s) => /^\s*BEGIN\b/i.test(s.text)).length;
    // Grouped: 20 sessions at once make a few batches, not one each.
    expect(batches).toBeLessThanOrEqual(messages / 2);
    // Per batch: the message and thread rows in one statement each, not one per message, and
    // one update of the inbox's uid counter for the batch and one that gives the unused back.
    expect(count(sent, /^\s*insert into "messages"/i)).toBe(batches);
    expect(count(sent, /^\s*insert into "threads"/i)).toBe(batches);
    expect(count(sent, /UPDATE inboxes SET uid_next/i)).toBeLessThanOrEqual(2 * batches);
    // The thread look-ups by subject of a batch's messages are one statement for the batch.
    expect(count(sent, /from "?threads"? /i)).toBe(batches);
    const list = await server.api(`/emails?account=${encodeURIComponent(server.inbox)}&limit=100`);
    const uids = (list.json.data.emails as { uid: number }[]).map((e) => e.uid).sort((a, b) => a - b);
    expect(uids).toEqual(Array.from({ length: before + messages }, (_, i) => i + 1));
    // The uids a block reserved and did not use went back: the next message takes the next one.
    expect(await sendAtOnce(server, 1, () => 'after the batch')).toEqual([250]);
    const newest = await server.api(`/emails?account=${encodeURIComponent(server.inbox)}&limit=1`);
    expect(newest.json.data.emails[0].uid).toBe(before + messages + 1);
  });

  it('threads a batch by subject as it would one message at a time', async () => {
    const account = encodeURIComponent(server.inbox);
    const messages = 12;
    // Mail without reply headers joins a thread of the same subject, sender and recipient:
    // the first of the batch makes the thread, the rest of the batch must find it.
    const sent = await statementsOf(async () => {
      const replies = await sendAtOnce(server, messages, () => 'Weekly numbers');
      expect(replies).toEqual(replies.map(() => 250));
    });
    const batches = sent.filter((s) => /^\s*BEGIN\b/i.test(s.text)).length;
    expect(batches).toBeLessThan(messages);
    const list = await server.api(`/emails?account=${account}&limit=100&subject=Weekly%20numbers`);
    const threads = new Set((list.json.data.emails as { threadId: string }[]).map((e) => e.threadId));
    expect(list.json.data.emails).toHaveLength(messages);
    expect(threads.size).toBe(1);
    // A later batch of the same subject joins it too, read from the database this time.
    expect(await sendAtOnce(server, 3, () => 'Re: Weekly numbers')).toEqual([250, 250, 250]);
    const again = await server.api(`/emails?account=${account}&limit=100&subject=Weekly%20numbers`);
    expect(new Set((again.json.data.emails as { threadId: string }[]).map((e) => e.threadId))).toEqual(
      threads,
    );
  });
});

describe('the ingest thread on PostgreSQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The subject is the ingest thread.
    server = await startServer({
      ...WITH_THREADS,
      databaseUrl: await (await testPostgres()).createDatabase(),
    });
  });
  afterAll(async () => server?.stop());

  it('files inbound mail on its own connection, off the thread that speaks SMTP and HTTP', async () => {
    const sent = await statementsOf(async () => {
      expect(await sendAtOnce(server, 10)).toEqual(Array.from({ length: 10 }, () => 250));
    });
    const list = await server.api(`/emails?account=${encodeURIComponent(server.inbox)}&limit=100`);
    expect(list.json.data.emails).toHaveLength(10);
    // The recipient lookups at RCPT TO run here; nothing of the group commit does.
    expect(sent.filter((s) => isLookup(s.text))).toHaveLength(10);
    expect(sent.filter((s) => /insert into "messages"|^\s*BEGIN\b/i.test(s.text))).toEqual([]);
  });
});
