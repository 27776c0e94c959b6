import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import { testPostgres } from '../helpers/test-postgres.js';

interface Sent {
  text: string;
  /** Sent between BEGIN and COMMIT on its connection. */
  inTransaction: boolean;
}

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
    const first: unknown = args[0];
    const text = typeof first === 'string' ? first : String((first as { text?: string }).text);
    if (/^\s*BEGIN\b/i.test(text)) inTransaction.add(this);
    else if (/^\s*(COMMIT|ROLLBACK)\b/i.test(text)) inTransaction.delete(this);
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

/** A folder or inbox read by a request or a message (background sweeps excluded by their text). */
const isLookup = (text: string) =>
  /^\s*select\b/i.test(text) && /\b(inboxes|folders)\b/i.test(text) && !/"kind"|\\Trash/.test(text);

// The round trips that set the speed of a page and of the group commit on PostgreSQL
// (decisions, "PostgreSQL round trips"): what a change adds here shows in the bench.
describe('round trips on PostgreSQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      databaseUrl: await (await testPostgres()).createDatabase(),
      smtpMaxConnectionsPerIp: 100,
    });
  });
  afterAll(async () => server?.stop());
  afterEach(() => expect(server.mailroom.db.engine).toBe('postgres'));

  it('files mail with one lookup for its inbox and folder, at RCPT TO, outside the group commit', async () => {
    const count = 20;
    const sent = await statementsOf(async () => {
      const replies = await Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const smtp = await openSmtp(server.mailroom.smtp.port);
          try {
            const raw = rawMessage({ from: 'alice@example.com', to: server.inbox, subject: `batch ${i}` });
            return (await smtp.send('alice@example.com', [server.inbox], raw)).data?.code;
          } finally {
            await smtp.close();
          }
        }),
      );
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
});
