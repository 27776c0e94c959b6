// Engines: SQLite only: the copy's subject is each engine's reader and writer, and this run copies every pair (SQLite to PostgreSQL and to SQLite, PostgreSQL back to SQLite and on to PostgreSQL).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailroom } from '../../src/mailroom.js';
import type { Mailroom } from '../../src/mailroom.js';
import { mailroom as cli } from '../helpers/cli.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import { testPostgres } from '../helpers/test-postgres.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

interface Account {
  key: string;
  inbox: string;
}

/** A server started on a copy: its own data directory holding the source's secret.key. */
interface CopyServer {
  mailroom: Mailroom;
  get(pathAndQuery: string, key: string): Promise<{ status: number; json: unknown; text: string }>;
  post(pathAndQuery: string, body: unknown, key: string): Promise<{ status: number; json: unknown }>;
  stop(): Promise<void>;
}

async function startOnCopy(
  secretKey: string,
  database: { url?: string; file?: string },
): Promise<CopyServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-copy-'));
  fs.copyFileSync(secretKey, path.join(dataDir, 'secret.key'));
  if (database.file) fs.copyFileSync(database.file, path.join(dataDir, 'mailroom.db'));
  const mailroom = createMailroom({
    env: {},
    dataDir,
    databaseUrl: database.url,
    host: '127.0.0.1',
    httpPort: 0,
    smtpPort: 0,
    verifyAuth: false,
    bootstrap: false,
    dbSync: 'normal',
    webhookAllowPrivate: true,
    logger: pino({ level: 'silent' }),
  });
  await mailroom.start();
  return {
    mailroom,
    get: (pathAndQuery, key) => get(`http://127.0.0.1:${mailroom.http.port}`, pathAndQuery, key),
    async post(pathAndQuery, body, key) {
      const res = await fetch(`http://127.0.0.1:${mailroom.http.port}/api/v1${pathAndQuery}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: await res.json() };
    },
    async stop() {
      await mailroom.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function get(base: string, pathAndQuery: string, key: string) {
  const res = await fetch(`${base}/api/v1${pathAndQuery}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // raw downloads
  }
  return { status: res.status, json, text };
}

type Get = (pathAndQuery: string, key: string) => Promise<{ status: number; json: unknown; text: string }>;

/** Every page of a list, following nextCursor. */
async function all(get: Get, pathAndQuery: string, key: string, field: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const sep = pathAndQuery.includes('?') ? '&' : '?';
    const res = await get(`${pathAndQuery}${sep}limit=100${cursor ? `&cursor=${cursor}` : ''}`, key);
    expect(res.status, `${pathAndQuery}: ${res.text}`).toBe(200);
    const data = (res.json as { data: Record<string, unknown> }).data;
    items.push(...(data[field] as unknown[]));
    cursor = data.nextCursor as string | null;
  } while (cursor);
  return items;
}

/**
 * What a user sees through the API: every folder's list and every message read (with its raw
 * and attachments), threads, labels, webhooks and their deliveries, and searches.
 */
async function answers(get: Get, accounts: Account[]): Promise<unknown> {
  const seen: Record<string, unknown> = {};
  await answersInto(seen, get, accounts);
  // PostgreSQL lists a thread's participants in another order than SQLite (DISTINCT without
  // ORDER BY in ThreadStore.participants): an engine difference, not the copy's.
  return JSON.parse(JSON.stringify(seen), (key, value: unknown) =>
    key === 'participants' && Array.isArray(value) ? [...(value as string[])].sort() : value,
  ) as unknown;
}

async function answersInto(seen: Record<string, unknown>, get: Get, accounts: Account[]): Promise<void> {
  for (const { key, inbox } of accounts) {
    const acc = `account=${encodeURIComponent(inbox)}`;
    const folders = (await get(`/folders?${acc}`, key)).json as { data: { folders: { name: string }[] } };
    seen[`${inbox} folders`] = folders;
    for (const { name } of folders.data.folders) {
      const folder = `${acc}&folder=${encodeURIComponent(name)}`;
      const emails = (await all(get, `/emails?${folder}`, key, 'emails')) as {
        uid: number;
        attachments: { id: string }[];
      }[];
      seen[`${inbox} ${name}`] = emails;
      for (const email of emails) {
        seen[`${inbox} ${name} ${email.uid}`] = (await get(`/emails/${email.uid}?${folder}`, key)).json;
        seen[`${inbox} ${email.uid} raw`] = (await get(`/emails/${email.uid}/raw?${acc}`, key)).text;
        for (const a of email.attachments ?? []) {
          const download = await get(`/emails/${email.uid}/attachments/${a.id}?${acc}`, key);
          seen[`${inbox} ${email.uid} ${a.id}`] = download.text;
        }
      }
    }
    const threads = (await all(get, `/threads?${acc}`, key, 'threads')) as {
      threadId?: string;
      id?: string;
    }[];
    seen[`${inbox} threads`] = threads;
    for (const thread of threads) {
      const id = thread.threadId ?? thread.id;
      seen[`${inbox} thread ${id}`] = (await get(`/threads/${id}?${acc}`, key)).json;
    }
    for (const q of ['quarterly', 'alice', 'invoic', 'kickoff', 'résumé']) {
      seen[`${inbox} search ${q}`] = await all(
        get,
        `/emails?${acc}&q=${encodeURIComponent(q)}`,
        key,
        'emails',
      );
    }
    seen[`${inbox} labels`] = await all(get, '/labels', key, 'labels');
    const hooks = (await all(get, '/webhooks', key, 'webhooks')) as { id: string }[];
    seen[`${inbox} webhooks`] = hooks;
    for (const hook of hooks) {
      seen[`${inbox} webhook ${hook.id}`] = await all(
        get,
        `/webhooks/${hook.id}/deliveries`,
        key,
        'deliveries',
      );
    }
  }
}

interface CopyJson {
  copy: { rows: number; tables: { table: string; source: number; target: number }[] };
}

describe('mailroom db copy', { timeout: 300_000 }, () => {
  let server: TestServer;
  let bob: Account;
  let receiver: WebhookReceiver;
  let parent: string;
  let accounts: Account[];
  let sourceDb: string;
  let postgresUrl: string;
  let postgresToPostgres: string;

  beforeAll(async () => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-dbcopy-'));
    receiver = await WebhookReceiver.start();
    server = await startServer();
    sourceDb = server.mailroom.deps.config.databaseUrl ?? path.join(server.dataDir, 'mailroom.db');
    bob = await server.addUser('bob');
    accounts = [{ key: server.key, inbox: server.inbox }, bob];
    postgresUrl = await (await testPostgres()).createDatabase();
    postgresToPostgres = await (await testPostgres()).createDatabase();

    const hook = await server.api('/webhooks', {
      body: { url: `${receiver.url}/hook`, events: ['email.received'], description: 'agent' },
    });
    expect(hook.status).toBe(201);
    await server.sendMail({
      from: 'Alice Example <alice@example.com>',
      to: server.inbox,
      subject: 'Quarterly report',
      text: 'Numbers attached. Résumé enclosed.',
      messageId: '<kickoff@example.com>',
      attachments: [
        { filename: 'report.csv', content: 'a,b\n1,2\n', contentType: 'text/csv' },
        { filename: 'logo.png', content: Buffer.from('89504e470d0a1a0a00ff', 'hex'), cid: 'logo@x' },
      ],
      html: '<p>Numbers</p><img src="cid:logo@x">',
    });
    await server.sendMail({
      from: 'bob@example.com',
      to: server.inbox,
      subject: 'Re: Quarterly report',
      text: 'Thanks for the kickoff numbers',
      inReplyTo: '<kickoff@example.com>',
      references: ['<kickoff@example.com>'],
    });
    for (let i = 1; i <= 5; i++) {
      await server.sendMail({
        from: 'carol@example.org',
        to: server.inbox,
        subject: `Invoice ${i}`,
        text: `due ${i}`,
      });
    }
    await server.sendMail({
      from: 'alice@example.com',
      to: bob.inbox,
      subject: 'For bob',
      text: 'hello bob',
    });
    // A source of ~3.5 MB, stored in pieces of 1 MB (message_source_parts): read back whole on each copy.
    await server.sendMail({
      from: 'alice@example.com',
      to: bob.inbox,
      subject: 'Big scan',
      text: 'the whole scan',
      attachments: [{ filename: 'scan.bin', content: crypto.randomBytes(2_600_000) }],
    });

    const acc = `account=${encodeURIComponent(server.inbox)}`;
    const inbox = (await server.api(`/emails?${acc}&limit=100`)).json.data.emails as {
      uid: number;
      subject: string;
    }[];
    const uidOf = (subject: string) => inbox.find((e) => e.subject === subject)!.uid;
    const label = (await server.api('/labels', { body: { name: 'Finance', color: '#112233' } })).json.data
      .label;
    // Labels are listed newest first by rowid, which the copy must keep, not renumber by id.
    for (const name of ['Later', 'Travel', 'Family', 'Receipts', 'Urgent']) {
      await server.api('/labels', { body: { name } });
    }
    await server.api(`/emails/${uidOf('Quarterly report')}/labels?${acc}`, { body: { labels: [label.id] } });
    await server.api(`/emails/${uidOf('Invoice 1')}?${acc}`, { method: 'PATCH', body: { action: 'read' } });
    await server.api(`/emails/${uidOf('Invoice 2')}?${acc}`, { method: 'PATCH', body: { action: 'flag' } });
    await server.api(`/emails/${uidOf('Invoice 3')}?${acc}`, { method: 'DELETE' });
    const draft = await server.api('/emails/drafts', {
      method: 'POST',
      body: { account: server.inbox, to: ['dave@example.net'], subject: 'Draft plan', text: 'not yet' },
    });
    expect(draft.status).toBe(201);
    const sent = await server.api('/emails/send', {
      method: 'POST',
      body: { from: server.inbox, to: ['erin@example.com'], subject: 'Sent note', text: 'out it goes' },
    });
    expect(sent.status).toBe(200);
    // Every webhook delivery done, so neither side has one left to retry after the copy.
    await eventually(() => receiver.delivered.length >= 7);
  });

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    for (const url of [postgresUrl, postgresToPostgres])
      if (url) await (await testPostgres()).dropDatabase(url);
    fs.rmSync(parent, { recursive: true, force: true });
  });

  it('copies a data directory to PostgreSQL and to SQLite, and each copy answers as the original', async () => {
    const sqliteCopy = path.join(parent, 'copy.db');
    const roundTrip = path.join(parent, 'round-trip.db');
    let toPostgres: CopyJson | undefined;
    let toSqlite: CopyJson | undefined;
    let back: CopyJson | undefined;
    let onward: CopyJson | undefined;
    await server.restart(async () => {
      const a = await cli(['db', 'copy', '--from', sourceDb, '--to', postgresUrl, '--json'], {});
      expect(a.code, a.stderr + a.stdout).toBe(0);
      // No progress bar when stderr is not a terminal.
      expect(a.stderr).toBe('');
      toPostgres = JSON.parse(a.stdout) as CopyJson;
      // Planner statistics gathered at once: without them a list reads the whole inbox.
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ analyzed: boolean }>(
          "SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'messages'",
        );
        expect(rows[0]?.analyzed).toBe(true);
      } finally {
        await client.end();
      }
      const b = await cli(['db', 'copy', '--from', sourceDb, '--to', sqliteCopy, '--json'], {});
      expect(b.code, b.stderr + b.stdout).toBe(0);
      toSqlite = JSON.parse(b.stdout) as CopyJson;
      // And back from PostgreSQL to SQLite: the PostgreSQL side read as a source.
      const c = await cli(['db', 'copy', '--from', postgresUrl, '--to', roundTrip, '--json'], {});
      expect(c.code, c.stderr + c.stdout).toBe(0);
      back = JSON.parse(c.stdout) as CopyJson;
      // And PostgreSQL to PostgreSQL: rowid and counters kept on both sides (plan.ts).
      const d = await cli(['db', 'copy', '--from', postgresUrl, '--to', postgresToPostgres, '--json'], {});
      expect(d.code, d.stderr + d.stdout).toBe(0);
      onward = JSON.parse(d.stdout) as CopyJson;
    });

    for (const result of [toPostgres!, toSqlite!, back!, onward!]) {
      const counts = Object.fromEntries(result.copy.tables.map((t) => [t.table, t]));
      for (const t of result.copy.tables) {
        if (t.table !== 'messages_fts') expect(t.target, t.table).toBe(t.source);
      }
      expect(counts.users!.target).toBe(2);
      expect(counts.messages!.target).toBeGreaterThanOrEqual(10);
      expect(counts.messages_fts!.target).toBe(counts.messages!.target);
      for (const table of [
        'attachments',
        'labels',
        'message_labels',
        'message_source_parts',
        'threads',
        'webhooks',
        'deliveries',
        'events',
      ]) {
        expect(counts[table]!.target, table).toBeGreaterThan(0);
      }
      expect(counts.webhook_deliveries!.target).toBeGreaterThanOrEqual(7);
    }

    const secretKey = path.join(server.dataDir, 'secret.key');
    const original = await answers((p, key) => get(server.baseUrl, p, key), accounts);
    expect(JSON.stringify(original)).toContain('report.csv');
    const uids: number[] = [];
    const copies = [
      { url: postgresUrl },
      { file: sqliteCopy },
      { file: roundTrip },
      { url: postgresToPostgres },
    ];
    for (const database of copies) {
      const copy = await startOnCopy(secretKey, database);
      try {
        expect(await answers(copy.get, accounts)).toEqual(original);
        const post = (p: string, body: unknown) => copy.post(p, body, server.key);
        uids.push(await addAfterCopy(copy.mailroom.smtp.port, post, copy.get, accounts[0]!));
      } finally {
        await copy.stop();
      }
    }
    // The original gives its next message the same uid each copy gave.
    const post = async (p: string, body: unknown) => server.api(p, { method: 'POST', body });
    const next = await addAfterCopy(
      server.mailroom.smtp.port,
      post,
      (p, key) => get(server.baseUrl, p, key),
      accounts[0]!,
    );
    expect(uids).toEqual(copies.map(() => next));
  });

  it('refuses a target that already holds mail, in one line, and leaves it as it was', async () => {
    const target = path.join(parent, 'busy.db');
    const first = await cli(['db', 'copy', '--from', sourceDb, '--to', target], {});
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^table +source +target$/m);
    expect(first.stdout).toMatch(/^messages +\d+ +\d+$/m);
    expect(first.stdout).toContain('same MAILROOM_SECRET');
    const before = fs.readFileSync(target);

    const again = await cli(['db', 'copy', '--from', sourceDb, '--to', target], {});
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(/already holds mail \(2 user\(s\)\).*never merges/);
    expect(fs.readFileSync(target).equals(before)).toBe(true);

    const json = await cli(['db', 'copy', '--from', sourceDb, '--to', postgresUrl, '--json'], {});
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error.code).toBe('conflict');
  });

  it('leaves the target as it was when a row fails half way', async () => {
    // SQLite keeps text in an INTEGER column (a damaged or hand-edited file); PostgreSQL refuses it.
    const tainted = path.join(parent, 'tainted.db');
    expect((await cli(['db', 'copy', '--from', sourceDb, '--to', tainted], {})).code).toBe(0);
    const sqlite = new BetterSqlite3(tainted);
    sqlite.prepare("UPDATE messages SET size = 'large' WHERE id = (SELECT max(id) FROM messages)").run();
    sqlite.close();
    const url = await (await testPostgres()).createDatabase();
    try {
      const failed = await cli(['db', 'copy', '--from', tainted, '--to', url], {});
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/^mailroom: the target refused rows of messages .*left as it was\n$/);
      // Users, inboxes and folders went in before the messages, in the same transaction.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const users = await client.query<{ n: string }>('SELECT count(*) AS n FROM users');
        expect(users.rows[0]!.n).toBe('0');
      } finally {
        await client.end();
      }
    } finally {
      await (await testPostgres()).dropDatabase(url);
    }
  });

  it('draws a progress bar on a terminal, while --json output stays one document', async () => {
    const target = path.join(parent, 'on-a-terminal.db');
    const out = path.join(parent, 'on-a-terminal.json');
    const command = [
      process.execPath,
      '--import',
      'tsx',
      'src/cli/main.ts',
      'db',
      'copy',
      '--from',
      sourceDb,
      '--to',
      target,
      '--json',
    ]
      .map((arg) => `'${arg}'`)
      .join(' ');
    // `script` gives the command a terminal; stdout goes to a file, stderr stays on the terminal.
    const transcript = execFileSync('script', ['-qec', `${command} > '${out}'`, '/dev/null'], {
      cwd: path.join(import.meta.dirname, '../..'),
      env: { PATH: process.env.PATH ?? '' },
    }).toString();
    expect(transcript).toMatch(/\[#+\.*\] +\d+% [\d,]+\/[\d,]+ rows \w+/);
    expect(JSON.parse(fs.readFileSync(out, 'utf8')).copy.rows).toBeGreaterThan(0);
  });

  it('says in one line what is wrong with a missing source or an unreachable database', async () => {
    const missing = await cli(
      ['db', 'copy', '--from', path.join(parent, 'nope.db'), '--to', path.join(parent, 'x.db')],
      {},
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^mailroom: no SQLite database at .*nope\.db \(the source\)\n$/);
    expect(fs.existsSync(path.join(parent, 'x.db'))).toBe(false);

    const url = 'postgres://mailroom:hunter2-secret@127.0.0.1:1/mailroom';
    const down = await cli(['db', 'copy', '--from', sourceDb, '--to', url], {});
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /^mailroom: cannot reach the target postgres:\/\/mailroom@127\.0\.0\.1:1\/mailroom: .*ECONNREFUSED.*\n$/,
    );
    const from = await cli(['db', 'copy', '--from', url, '--to', path.join(parent, 'y.db')], {});
    expect(from.stderr).toMatch(/^mailroom: cannot reach the source .*ECONNREFUSED.*\n$/);
    expect(down.stderr + from.stderr).not.toContain('hunter2');
    expect(fs.existsSync(path.join(parent, 'y.db'))).toBe(false);
  });
});

/**
 * New rows on a server take the next ids: the message gets the inbox's next uid, and the message,
 * label and webhook rows get ids past the copied ones (on PostgreSQL only if the copy set the
 * sequences; otherwise the inserts collide with copied rows). Answers the new message's uid.
 */
async function addAfterCopy(
  smtpPort: number,
  post: (pathAndQuery: string, body: unknown) => Promise<{ status: number; json: unknown }>,
  get: Get,
  account: Account,
): Promise<number> {
  const smtp = await openSmtp(smtpPort);
  await smtp.command('EHLO client.example');
  await smtp.command('MAIL FROM:<late@example.com>');
  await smtp.command(`RCPT TO:<${account.inbox}>`);
  const reply = await smtp.data(
    rawMessage({ from: 'late@example.com', to: account.inbox, subject: 'After the move' }),
  );
  await smtp.close();
  expect(reply.code, reply.text).toBe(250);
  const label = await post('/labels', { name: 'Moved' });
  expect(label.status).toBe(201);
  const labels = (await get('/labels?limit=1', account.key)).json as { data: { labels: { name: string }[] } };
  expect(labels.data.labels[0]!.name).toBe('Moved');
  expect(
    (await post('/webhooks', { url: 'https://93.184.215.14/later', events: ['email.sent'] })).status,
  ).toBe(201);
  const acc = `account=${encodeURIComponent(account.inbox)}`;
  const found = (await get(`/emails?${acc}&q=move`, account.key)).json as {
    data: { emails: { uid: number }[] };
  };
  expect(found.data.emails).toHaveLength(1);
  return found.data.emails[0]!.uid;
}
