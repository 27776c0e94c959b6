import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { openSmtp } from '../helpers/smtp-session.js';
import type { SmtpSession } from '../helpers/smtp-session.js';
import { percentiles } from './list.js';
import type { Latency } from './list.js';
import { startMailroom } from './processes.js';
import { CORPUS_INBOXES, makeCorpus } from './storage-corpus.js';
import type { CorpusMessage } from './storage-corpus.js';

/** Bytes on disk by table (its indexes and, on PostgreSQL, its TOAST included), and in all. */
export interface Footprint {
  tables: Map<string, { table: number; indexes: number }>;
  /** The data directory (SQLite) or the database (PostgreSQL), catalogs and free pages included. */
  total: number;
}

export interface StorageResult {
  engine: 'SQLite' | 'PostgreSQL';
  messages: number;
  deliveries: number;
  /** The bytes of mail sent: each message once, as the sender's DATA (before dot-stuffing). */
  mailBytes: number;
  grown: Footprint;
  read: Latency;
  raw: Latency;
  page: Latency;
}

const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const SENDERS = 4;

/** Files the corpus over SMTP, SENDERS connections at once, each message to its inboxes in one transaction. */
async function sendCorpus(port: number, corpus: CorpusMessage[]): Promise<void> {
  let next = 0;
  const sessions: SmtpSession[] = await Promise.all(Array.from({ length: SENDERS }, () => openSmtp(port)));
  await Promise.all(
    sessions.map(async (session) => {
      await session.command('EHLO bench.example');
      while (next < corpus.length) {
        const message = corpus[next++]!;
        const { mail, rcpt, data } = await session.send('sender@example.com', message.to, message.raw);
        if (mail.code !== 250 || rcpt.some((r) => r.code !== 250) || data?.code !== 250)
          throw new Error(`SMTP refused a message: ${JSON.stringify({ mail, rcpt, data })}`);
      }
      await session.close();
    }),
  );
}

function sqliteFootprint(dataDir: string): Footprint {
  const total = fs
    .readdirSync(dataDir)
    .reduce((sum, name) => sum + fs.statSync(path.join(dataDir, name)).size, 0);
  const db = new BetterSqlite3(path.join(dataDir, 'mailroom.db'), { readonly: true });
  try {
    const owners = new Map(
      (
        db.prepare('SELECT name, tbl_name FROM sqlite_master').all() as { name: string; tbl_name: string }[]
      ).map((r) => [r.name, r.tbl_name]),
    );
    const tables = new Map<string, { table: number; indexes: number }>();
    const rows = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name').all() as {
      name: string;
      bytes: number;
    }[];
    for (const { name, bytes } of rows) {
      // FTS5 keeps its index in shadow tables named after it.
      const owner = /^messages_fts_/.test(name) ? 'messages_fts' : (owners.get(name) ?? name);
      const entry = tables.get(owner) ?? { table: 0, indexes: 0 };
      if (owner === name || owner === 'messages_fts') entry.table += bytes;
      else entry.indexes += bytes;
      tables.set(owner, entry);
    }
    return { tables, total };
  } finally {
    db.close();
  }
}

async function postgresFootprint(url: string): Promise<Footprint> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; table: string; indexes: string }>(
      `SELECT c.relname AS name, pg_table_size(c.oid) AS table, pg_indexes_size(c.oid) AS indexes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r'`,
    );
    const total = await client.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size');
    return {
      tables: new Map(rows.map((r) => [r.name, { table: Number(r.table), indexes: Number(r.indexes) }])),
      total: Number(total.rows[0]!.size),
    };
  } finally {
    await client.end();
  }
}

function grownSince(before: Footprint, after: Footprint): Footprint {
  const tables = new Map<string, { table: number; indexes: number }>();
  for (const [name, now] of after.tables) {
    const then = before.tables.get(name) ?? { table: 0, indexes: 0 };
    tables.set(name, { table: now.table - then.table, indexes: now.indexes - then.indexes });
  }
  return { tables, total: after.total - before.total };
}

async function timeGets(urls: string[], apiKey: string): Promise<Latency> {
  const samples: number[] = [];
  for (const url of urls) {
    const started = process.hrtime.bigint();
    const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return percentiles(samples);
}

/**
 * The corpus filed through a real server (its own process) on one engine: how much the data
 * directory or the database grew, by table, and what reading a message, its source and a list
 * page cost once it is there.
 */
export async function runStorage(
  engine: 'SQLite' | 'PostgreSQL',
  corpus: CorpusMessage[],
  databaseUrl?: string,
): Promise<StorageResult> {
  const server = await startMailroom({
    MAILROOM_ADMIN_TOKEN: ADMIN_TOKEN,
    ...(databaseUrl ? { MAILROOM_DATABASE_URL: databaseUrl } : {}),
  });
  try {
    const base = `http://127.0.0.1:${server.httpPort}`;
    for (const address of CORPUS_INBOXES.slice(1)) {
      const res = await fetch(`${base}/admin/v1/inboxes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ address, user: 'default' }),
      });
      if (res.status !== 201) throw new Error(`creating ${address}: ${res.status} ${await res.text()}`);
    }
    const footprint = () => (databaseUrl ? postgresFootprint(databaseUrl) : sqliteFootprint(server.dataDir));
    const before = await footprint();
    await sendCorpus(server.smtpPort, corpus);

    const inbox = CORPUS_INBOXES[0]!;
    const uids = Array.from(
      { length: 200 },
      (_, i) => 1 + ((i * 7919) % corpus.filter((m) => m.to.includes(inbox)).length),
    );
    const read = await timeGets(
      uids.map((uid) => `${base}/api/v1/emails/${uid}?account=${inbox}`),
      server.apiKey,
    );
    const raw = await timeGets(
      uids.map((uid) => `${base}/api/v1/emails/${uid}/raw?account=${inbox}`),
      server.apiKey,
    );
    const page = await timeGets(
      Array.from({ length: 200 }, () => `${base}/api/v1/emails?account=${inbox}&limit=50`),
      server.apiKey,
    );

    // Measured after a clean stop: SQLite has checkpointed its WAL into the file by then.
    const exited = new Promise<void>((resolve) => server.process.once('exit', () => resolve()));
    server.process.kill('SIGTERM');
    await exited;
    const after = await footprint();
    return {
      engine,
      messages: corpus.length,
      deliveries: corpus.reduce((n, m) => n + m.to.length, 0),
      mailBytes: corpus.reduce((n, m) => n + m.raw.length, 0),
      grown: grownSince(before, after),
      read,
      raw,
      page,
    };
  } finally {
    await server.stop();
  }
}

export function printStorage(r: StorageResult): void {
  const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
  const per = (n: number) => (n / r.mailBytes).toFixed(3);
  console.log(
    `\n### ${r.engine}: ${mb(r.grown.total)} grown for ${mb(r.mailBytes)} of mail: ${per(r.grown.total)} bytes per byte of mail`,
  );
  const rows = [...r.grown.tables.entries()]
    .filter(([, s]) => s.table + s.indexes !== 0)
    .sort((a, b) => b[1].table + b[1].indexes - (a[1].table + a[1].indexes));
  console.log(
    `${'table'.padEnd(22)}${'rows+toast'.padStart(12)}${'indexes'.padStart(12)}${'per byte'.padStart(10)}`,
  );
  for (const [name, s] of rows)
    console.log(
      `${name.padEnd(22)}${mb(s.table).padStart(12)}${mb(s.indexes).padStart(12)}${per(s.table + s.indexes).padStart(10)}`,
    );
  const counted = rows.reduce((n, [, s]) => n + s.table + s.indexes, 0);
  console.log(
    `${'(other: free pages, catalogs, WAL)'.padEnd(46)}${per(r.grown.total - counted).padStart(10)}`,
  );
  const row = (name: string, l: Latency) =>
    console.log(`${name.padEnd(40)} p50 ${l.p50.toFixed(2)} ms   p99 ${l.p99.toFixed(2)} ms`);
  row('read one email (GET /emails/{uid})', r.read);
  row('its source (GET /emails/{uid}/raw)', r.raw);
  row('a list page (GET /emails?limit=50)', r.page);
}

/**
 * The corpus of `count` messages; with `shapes` (BENCH_STORAGE_SHAPES, e.g. `newsletter,reply`),
 * only the messages of those shapes among them: what each kind of mail costs on its own.
 */
export async function storageCorpus(count: number, shapes?: string[]): Promise<CorpusMessage[]> {
  const corpus = (await makeCorpus(count)).filter((m) => !shapes || shapes.includes(m.shape));
  const bytes = corpus.reduce((n, m) => n + m.raw.length, 0);
  const byShape = new Map<string, { count: number; bytes: number }>();
  for (const m of corpus) {
    const s = byShape.get(m.shape) ?? { count: 0, bytes: 0 };
    s.count++;
    s.bytes += m.raw.length;
    byShape.set(m.shape, s);
  }
  console.log(
    `\n## Storage: ${corpus.length} messages of real-world shapes${shapes ? ` (${shapes.join(', ')} only)` : ''}, ${(bytes / 1e6).toFixed(1)} MB of mail, ` +
      `${corpus.reduce((n, m) => n + m.to.length, 0)} deliveries (one in ten to several local inboxes), over SMTP`,
  );
  console.log(
    [...byShape.entries()]
      .map(([shape, s]) => `${shape} ${s.count} (${((100 * s.bytes) / bytes).toFixed(0)}% of bytes)`)
      .join(', '),
  );
  return corpus;
}
