import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteDb } from '../../src/db/sqlite.js';
import { knownMigrations, runMigrations } from '../../src/db/migrate.js';
import { createMailroom } from '../../src/mailroom.js';
import type { Mailroom } from '../../src/mailroom.js';
import { mailroom as cli } from '../helpers/cli.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import { compiled } from '../helpers/compiled.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = fs.readFileSync(path.join(root, 'fixtures/db/release-1.sql'), 'utf8');
/** The key the first release printed when it made the fixture. */
const RELEASE_1_KEY = /mr_live_\S+/.exec(fixture)![0];
const INBOX = 'agent@mailroom.test';

/** A data directory holding the first release's database, exactly as that release left it. */
function firstReleaseDataDir(parent: string, name: string): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { mode: 0o700 });
  const sqlite = new BetterSqlite3(path.join(dir, 'mailroom.db'));
  sqlite.pragma('journal_mode = WAL');
  // The fixture writes the full-text index's own tables as they were, which SQLite's defensive
  // mode (better-sqlite3's default) forbids.
  sqlite.unsafeMode(true);
  sqlite.exec(fixture);
  sqlite.close();
  return dir;
}

const rows = (file: string, sql: string) => {
  const sqlite = new BetterSqlite3(file, { readonly: true });
  try {
    return sqlite.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    sqlite.close();
  }
};

describe('upgrading a database made by the first release', { timeout: 120_000 }, () => {
  let parent: string;
  let server: Mailroom;
  let dataDir: string;
  beforeAll(async () => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-migrate-'));
    dataDir = firstReleaseDataDir(parent, 'data');
    server = createMailroom({
      env: {},
      dataDir,
      httpPort: 0,
      smtpPort: 0,
      verifyAuth: false,
      bootstrap: false,
      logger: pino({ level: 'silent' }),
    });
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(parent, { recursive: true, force: true });
  });

  const api = async (pathAndQuery: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(`http://127.0.0.1:${server.http.port}/api/v1${pathAndQuery}`, {
      method: init.method ?? (init.body ? 'POST' : 'GET'),
      headers: {
        authorization: `Bearer ${RELEASE_1_KEY}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : null };
  };

  it('applies every later migration once, and the old mail, threads, search and key still work', async () => {
    const file = server.config.dbFile;
    expect(rows(file, 'SELECT name FROM schema_migrations ORDER BY name').map((r) => r.name)).toEqual(
      knownMigrations(),
    );
    expect(rows(file, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);

    const list = await api(`/emails?account=${INBOX}`);
    expect(list.status).toBe(200);
    const emails = list.json.data.emails as { uid: number; subject: string; threadId: string }[];
    expect(emails.map((e) => e.subject)).toEqual([
      'Re: Quarterly report 1',
      'Quarterly report 2',
      'Quarterly report 1',
    ]);
    expect(emails[0]!.threadId).toBe(emails[2]!.threadId);

    const reply = await api(`/emails/${emails[0]!.uid}?account=${INBOX}`);
    expect(reply.json.data.email.attachments).toEqual([expect.objectContaining({ filename: 'q1.csv' })]);
    const csv = await api(`/emails/${emails[0]!.uid}/attachments/a1?account=${INBOX}`);
    expect(csv.text).toContain('quarter,revenue');
    const found = await api(`/emails?account=${INBOX}&q=numbers`);
    expect(found.json.data.emails.map((e: { subject: string }) => e.subject).sort()).toEqual([
      'Quarterly report 1',
      'Quarterly report 2',
    ]);
  });

  it('takes what later releases added: new mail, labels, sending, and the DKIM keys sealed', async () => {
    const smtp = await openSmtp(server.smtp.port);
    const reply = await smtp.send(
      'carol@example.com',
      [INBOX],
      rawMessage({ from: 'carol@example.com', to: INBOX, subject: 'After the upgrade' }),
    );
    await smtp.close();
    expect(reply.data!.code).toBe(250);
    const list = await api(`/emails?account=${INBOX}`);
    expect(list.json.data.emails[0]).toMatchObject({ uid: 4, subject: 'After the upgrade' });

    const label = await api('/labels', { body: { name: 'finance' } });
    expect(label.status).toBe(201);
    const labelled = await api(`/emails/1/labels?account=${INBOX}`, { body: { labels: ['finance'] } });
    expect(labelled.status, labelled.text).toBe(200);
    expect(labelled.json.data.email.labels).toEqual([expect.objectContaining({ name: 'finance' })]);
    const sent = await api('/emails/send', {
      body: { from: INBOX, to: 'someone@example.com', subject: 'Sent from an old database', text: 'hi' },
    });
    expect(sent.status, sent.text).toBe(200);

    const keys = rows(server.config.dbFile, 'SELECT dkim_private_key FROM domains');
    expect(keys).toHaveLength(2);
    for (const { dkim_private_key } of keys) expect(String(dkim_private_key)).not.toContain('PRIVATE KEY');
  });
});

describe('a database from a newer release', { timeout: 120_000 }, () => {
  let parent: string;
  let dataDir: string;
  beforeAll(async () => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-newer-'));
    dataDir = path.join(parent, 'data');
    expect((await cli(['user', 'add', 'alice', '--init'], { MAILROOM_DATA_DIR: dataDir })).code).toBe(0);
    const sqlite = new BetterSqlite3(path.join(dataDir, 'mailroom.db'));
    sqlite
      .prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)')
      .run('042_from_the_future.sql', new Date().toISOString());
    sqlite.close();
  });
  afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

  it('is refused in one line naming the newest known and the found migration, by serve and the CLI', async () => {
    const newest = knownMigrations().at(-1)!;
    const env = { MAILROOM_DATA_DIR: dataDir, MAILROOM_LOG_LEVEL: 'silent' };
    const results = await Promise.all([
      cli(['user', 'list'], env),
      cli(['serve', '--http-port', '0', '--smtp-port', '0'], env),
    ]);
    for (const result of results) {
      expect(result.code, result.stdout).toBe(1);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toContain('042_from_the_future.sql');
      expect(lines[0]).toContain(newest);
      expect(lines[0]).toMatch(/newer Mailroom.*Upgrade Mailroom/);
    }
    const json = await cli(['user', 'list', '--json'], env);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'config_error' });
  });
});

describe('two processes migrating the same database', { timeout: 120_000 }, () => {
  let parent: string;
  beforeAll(() => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-lock-'));
  });
  afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

  it('the second waits for the first to finish, then finds nothing left to do', async () => {
    const dataDir = path.join(parent, 'data');
    fs.mkdirSync(dataDir);
    const onlyFirst = path.join(parent, 'migrations-001');
    fs.mkdirSync(onlyFirst);
    const all = knownMigrations();
    fs.copyFileSync(path.join(root, 'migrations', all[0]!), path.join(onlyFirst, all[0]!));
    const dbFile = path.join(dataDir, 'mailroom.db');
    const first = new SqliteDb(new BetterSqlite3(dbFile));
    first.sqlite.pragma('journal_mode = WAL');
    runMigrations(first, { dir: onlyFirst });

    // This connection is the first migrator: it holds SQLite's write lock and is mid-way.
    first.sqlite.exec('BEGIN IMMEDIATE');
    const child = spawn(process.execPath, [await compiled('src/cli/main.ts'), 'user', 'list', '--json'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', MAILROOM_DATA_DIR: dataDir },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('waiting for the write lock')) resolve();
      });
      void exited.then(() => reject(new Error(`the CLI exited without waiting: ${stderr}${stdout}`)));
    });

    for (const file of all.slice(1)) {
      first.sqlite.exec(fs.readFileSync(path.join(root, 'migrations', file), 'utf8'));
      first.sqlite
        .prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)')
        .run(file, new Date().toISOString());
    }
    first.sqlite.exec('COMMIT');
    await first.close();

    expect(await exited, stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ users: [] });
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(rows(dbFile, 'SELECT name FROM schema_migrations ORDER BY name').map((r) => r.name)).toEqual(all);
  });
});
