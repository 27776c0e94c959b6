import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import { sqliteOf } from '../helpers/sqlite-of.js';
import { compiled } from '../helpers/compiled.js';
import { testPostgres } from '../helpers/test-postgres.js';

/**
 * The server's database reached below the store, on either engine: failures are injected as
 * triggers in the database itself (not TEMP), so they reach every connection that writes mail,
 * whichever thread or pool holds it.
 */
interface Below {
  count(table: string): Promise<number>;
  sum(sql: string): Promise<number>;
  /** Makes inserts into `table` (those matching `when`) fail with `message` until the returned undo. */
  failInserts(name: string, table: string, message: string, when?: string): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

function sqliteBelow(server: TestServer): Below {
  const sqlite = () => sqliteOf(server.mailroom.db);
  const number = (sql: string) => (sqlite().prepare(sql).get() as { n: number }).n;
  return {
    count: (table) => Promise.resolve(number(`SELECT count(*) AS n FROM ${table}`)),
    sum: (sql) => Promise.resolve(number(sql)),
    failInserts(name, table, message, when) {
      sqlite().exec(
        `CREATE TRIGGER ${name} BEFORE INSERT ON ${table} ${when ? `WHEN ${when}` : ''}
         BEGIN SELECT RAISE(ABORT, '${message}'); END`,
      );
      return Promise.resolve(() => Promise.resolve(void sqlite().exec(`DROP TRIGGER ${name}`)));
    },
    close: () => Promise.resolve(),
  };
}

async function postgresBelow(server: TestServer): Promise<Below> {
  const client = new pg.Client({ connectionString: server.cliEnv.MAILROOM_DATABASE_URL });
  await client.connect();
  await client.query(
    `CREATE FUNCTION fail_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '%', TG_ARGV[0]; END $$`,
  );
  const number = async (sql: string) => Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
  return {
    count: (table) => number(`SELECT count(*) AS n FROM ${table}`),
    sum: number,
    async failInserts(name, table, message, when) {
      await client.query(
        `CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW ${when ? `WHEN (${when.replaceAll('NEW.', 'new.')})` : ''}
         EXECUTE FUNCTION fail_insert('${message}')`,
      );
      return async () => void (await client.query(`DROP TRIGGER ${name} ON ${table}`));
    },
    close: () => client.end(),
  };
}

describe('a storage failure while receiving', () => {
  let server: TestServer;
  let below: Below;
  let bob: { key: string; inbox: string; userId: number };
  beforeAll(async () => {
    server = await startServer();
    below = onPostgres ? await postgresBelow(server) : sqliteBelow(server);
    bob = await server.addUser('bob');
  });
  afterAll(async () => {
    await below.close();
    await server.stop();
  });

  /** Row counts of every table a received message touches (PostgreSQL's search index is a column). */
  const footprint = async () => {
    const tables = ['messages', 'message_sources', 'attachments', 'threads', 'events'];
    const counts: Record<string, number> = {};
    for (const table of onPostgres ? tables : [...tables, 'messages_fts'])
      counts[table] = await below.count(table);
    return counts;
  };
  const uidNext = () => below.sum('SELECT sum(uid_next) AS n FROM inboxes');

  async function send(to: string[], subject: string) {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const result = await smtp.send(
      'alice@example.com',
      to,
      rawMessage({ from: 'alice@example.com', to: to.join(', '), subject }),
    );
    await smtp.close();
    return result.data!;
  }

  it('answers 451 4.3.0 and stores nothing when the database refuses the write', async () => {
    const before = await footprint();
    const uids = await uidNext();
    const undo = await below.failInserts('fail_raw', 'message_sources', 'disk full');
    try {
      const reply = await send([server.inbox], 'Lost?');
      expect(reply.code).toBe(451);
      expect(reply.text).toMatch(/^4\.3\.0 /);
      expect((await server.api(`/emails?account=${server.inbox}`)).status).toBe(200);
    } finally {
      await undo();
    }
    expect(await footprint()).toEqual(before);
    expect(await uidNext()).toBe(uids);
    expect((await server.api(`/emails?account=${server.inbox}`)).json.data.emails).toEqual([]);

    // The sender retries, as SMTP senders do after a 4xx: now it is stored, once.
    const retry = await send([server.inbox], 'Lost?');
    expect(retry.code).toBe(250);
    const emails = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails;
    expect(emails).toEqual([expect.objectContaining({ uid: 1, subject: 'Lost?' })]);
  });

  it('stores no copy at all when the copy for one of several inboxes fails', async () => {
    const before = await footprint();
    const bobInbox = (await server.mailroom.deps.store.inboxes.findByAddress(bob.inbox))!;
    const undo = await below.failInserts(
      'fail_bob',
      'messages',
      'no space for bob',
      `NEW.inbox_id = ${bobInbox.id}`,
    );
    try {
      const reply = await send([server.inbox, bob.inbox], 'Both or neither');
      expect(reply.code).toBe(451);
    } finally {
      await undo();
    }
    expect(await footprint()).toEqual(before);
    const mine = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails;
    expect(mine.map((e: { subject: string }) => e.subject)).not.toContain('Both or neither');
  });

  it('does not fail a neighbour that was committed in the same batch', async () => {
    const bobInbox = (await server.mailroom.deps.store.inboxes.findByAddress(bob.inbox))!;
    const undo = await below.failInserts(
      'fail_bob',
      'messages',
      'no space for bob',
      `NEW.inbox_id = ${bobInbox.id}`,
    );
    let replies: Awaited<ReturnType<typeof send>>[];
    try {
      replies = await Promise.all([
        send([bob.inbox], 'Bad neighbour'),
        send([server.inbox], 'Good neighbour 1'),
        send([server.inbox], 'Good neighbour 2'),
      ]);
    } finally {
      await undo();
    }
    expect(replies.map((r) => r.code)).toEqual([451, 250, 250]);
    const subjects = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails.map(
      (e: { subject: string }) => e.subject,
    );
    expect(subjects).toEqual(expect.arrayContaining(['Good neighbour 1', 'Good neighbour 2']));
    expect((await server.api(`/emails?account=${bob.inbox}`, { key: bob.key })).json.data.emails).toEqual([]);
  });
});

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Running {
  child: ChildProcess;
  http: number;
  smtp: number;
  key?: string;
}

/** Starts `mailroom serve` as its own process and reads its ports (and first-start key) from stdout. */
async function serve(dataDir: string, databaseUrl: string | undefined): Promise<Running> {
  const child = spawn(
    process.execPath,
    [await compiled('src/cli/main.ts'), 'serve', '--http-port', '0', '--smtp-port', '0'],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        MAILROOM_DATA_DIR: dataDir,
        ...(databaseUrl ? { MAILROOM_DATABASE_URL: databaseUrl } : {}),
        MAILROOM_VERIFY_AUTH: 'false',
        MAILROOM_LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    // The banner (ports, first-start key) is on stderr: stdout carries only JSON log lines.
    let err = '';
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    child.stdout!.resume();
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const ports = /HTTP http:\/\/[\d.]+:(\d+)\s+SMTP [\d.]+:(\d+)/.exec(err);
      const boot = err.includes('First start');
      const key = /^\s+(mr_live_\S+)$/m.exec(err)?.[1];
      if (ports && (!boot || key)) {
        resolve({ child, http: Number(ports[1]), smtp: Number(ports[2]), key });
      }
    });
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('a crash in the middle of a stream of mail', { timeout: 180_000 }, () => {
  let dataDir: string;
  let databaseUrl: string | undefined;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-crash-'));
    // The project's engine, as startServer() would choose it.
    databaseUrl = onPostgres ? await (await testPostgres()).createDatabase() : undefined;
  });
  afterAll(() => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every message that was answered 250 after kill -9 and a restart', async () => {
    const first = await serve(dataDir, databaseUrl);
    children.push(first.child);
    const key = first.key!;
    const inbox = 'agent@mailroom.test';

    const acknowledged: string[] = [];
    let killed = false;
    let sent = 0;
    const sender = async (lane: number) => {
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port: first.smtp,
        secure: false,
        ignoreTLS: true,
        pool: false,
        connectionTimeout: 5000,
        socketTimeout: 5000,
      });
      while (!killed) {
        const subject = `crash-${lane}-${sent++}`;
        try {
          await transport.sendMail({
            from: 'load@example.com',
            to: inbox,
            subject,
            text: `body of ${subject}`,
          });
          if (!killed) acknowledged.push(subject);
        } catch {
          if (!killed) await new Promise((r) => setTimeout(r, 20));
        }
      }
      transport.close();
    };
    const lanes = [0, 1, 2, 3].map(sender);
    while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 10));
    // Everything acknowledged so far must survive; replies still in flight may or may not.
    const mustSurvive = [...acknowledged];
    first.child.kill('SIGKILL');
    killed = true;
    await Promise.all(lanes);
    await exited(first.child);

    const second = await serve(dataDir, databaseUrl);
    children.push(second.child);
    expect(second.key).toBeUndefined();

    const subjects: string[] = [];
    const uids: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await fetch(
        `http://127.0.0.1:${second.http}/api/v1/emails?account=${inbox}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        { headers: { authorization: `Bearer ${key}` } },
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        data: { emails: { uid: number; subject: string }[]; nextCursor: string | null };
      };
      subjects.push(...body.data.emails.map((e) => e.subject));
      uids.push(...body.data.emails.map((e) => e.uid));
      cursor = body.data.nextCursor;
    } while (cursor);

    for (const subject of mustSurvive) expect(subjects).toContain(subject);
    expect(new Set(subjects).size).toBe(subjects.length);
    for (const uid of uids) {
      const res = await fetch(`http://127.0.0.1:${second.http}/api/v1/emails/${uid}?account=${inbox}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      const email = ((await res.json()) as { data: { email: { subject: string; text: string } } }).data.email;
      expect(email.text).toContain(`body of ${email.subject}`);
    }

    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
  });
});
