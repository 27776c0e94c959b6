import fs from 'node:fs';
import { testDkimKey } from './test-dkim-key.js';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import pino from 'pino';
import { createMailroom } from '../../src/mailroom.js';
import type { Mailroom, MailroomOptions } from '../../src/mailroom.js';
import { addLocalInbox, addUser, createKey } from '../../src/mailbox/operations/admin.js';
import { openDatabase } from '../../src/db/open.js';
import { testPostgres } from './test-postgres.js';

/** Whether this run keeps the servers' data in PostgreSQL (npm run test:postgres). */
export const onPostgres = process.env.MAILROOM_TEST_DB === 'postgres';

export interface TestServer {
  mailroom: Mailroom;
  dataDir: string;
  /** What a `mailroom` command run beside this server needs to open its data: the data dir, and the database URL on PostgreSQL. */
  cliEnv: Record<string, string>;
  /** The bootstrap user's key and inbox. */
  key: string;
  inbox: string;
  baseUrl: string;
  /** fetch against the API with the bootstrap key (or `key`), JSON in and out. */
  api(pathAndQuery: string, init?: ApiInit): Promise<ApiResponse>;
  /** Sends a raw RFC 5322 message over real SMTP. */
  sendRaw(raw: string | Buffer, envelope: { from: string; to: string[] }): Promise<void>;
  /** Sends a simple message over real SMTP with nodemailer. */
  sendMail(mail: SendMailOptions): Promise<{ messageId: string }>;
  /** Another user with its own inbox and key on the same server. */
  addUser(name: string, localPart?: string): Promise<{ key: string; inbox: string; userId: number }>;
  /**
   * Stops and starts again on the same data directory (new ports), running `whileStopped` in
   * between; `changes` are settings the server has from then on.
   */
  restart(whileStopped?: () => void | Promise<void>, changes?: MailroomOptions): Promise<void>;
  stop(): Promise<void>;
}

export interface ApiInit {
  method?: string;
  body?: unknown;
  key?: string | null;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
}

const silent = pino({ level: 'silent' });

/**
 * The server's threads as it runs by default (an ingest thread, two parse threads). Test servers
 * start without them (filing and parsing inline, a third of the start-up time); a test whose
 * subject is the threads passes these, saying why.
 */
export const WITH_THREADS: MailroomOptions = { ingestThread: true, parseThreads: 2 };

export async function startServer(options: MailroomOptions = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-test-'));
  // Under MAILROOM_TEST_DB=postgres every server gets a fresh database of the run's PostgreSQL,
  // already migrated (a copy of the run's template).
  const databaseUrl =
    options.databaseUrl ??
    (onPostgres ? await (await testPostgres()).createDatabase({ migrated: true }) : undefined);
  if (!databaseUrl && !options.dataDir) {
    fs.copyFileSync(await migratedSqliteFile(), path.join(dataDir, 'mailroom.db'));
  }
  let base: MailroomOptions = {
    databaseUrl,
    env: {},
    dataDir,
    host: '127.0.0.1',
    httpPort: 0,
    smtpPort: 0,
    verifyAuth: false,
    dbSync: 'normal',
    logger: silent,
    webhookAllowPrivate: true,
    dkimKey: await testDkimKey(),
    ingestThread: false,
    parseThreads: 0,
    ...options,
  };
  let mailroom = createMailroom(base);
  await mailroom.start();
  const boot = mailroom.bootstrap!;
  let transport = smtpTransport(mailroom);

  const server: TestServer = {
    mailroom,
    dataDir,
    cliEnv: { MAILROOM_DATA_DIR: dataDir, ...(databaseUrl ? { MAILROOM_DATABASE_URL: databaseUrl } : {}) },
    key: boot.apiKey,
    inbox: boot.inbox,
    get baseUrl() {
      return `http://127.0.0.1:${server.mailroom.http.port}`;
    },
    async api(pathAndQuery, init = {}) {
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      const key = init.key === undefined ? server.key : init.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      const url =
        pathAndQuery.startsWith('/') &&
        !pathAndQuery.startsWith('/api/') &&
        !pathAndQuery.startsWith('/admin/')
          ? `${server.baseUrl}/api/v1${pathAndQuery}`
          : `${server.baseUrl}${pathAndQuery}`;
      const res = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
      return { status: res.status, headers: res.headers, json, text };
    },
    async sendRaw(raw, envelope) {
      await transport.sendMail({ envelope, raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw) });
    },
    async sendMail(mail) {
      const info = await transport.sendMail(mail);
      return { messageId: info.messageId };
    },
    async addUser(name, localPart = name) {
      const deps = server.mailroom.deps;
      const user = await addUser(deps, name);
      const inbox = await addLocalInbox(deps, `${localPart}@${boot.domain}`, user.id);
      return { key: (await createKey(deps, user.id)).key, inbox: inbox.address, userId: user.id };
    },
    async restart(whileStopped, changes = {}) {
      transport.close();
      await server.mailroom.stop();
      await whileStopped?.();
      base = { ...base, ...changes };
      mailroom = createMailroom({ ...base, bootstrap: false });
      server.mailroom = mailroom;
      await mailroom.start();
      transport = smtpTransport(mailroom);
    },
    async stop() {
      transport.close();
      await server.mailroom.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (databaseUrl && !options.databaseUrl) await (await testPostgres()).dropDatabase(databaseUrl);
    },
  };
  return server;
}

let sqliteTemplate: Promise<string> | undefined;

/**
 * An empty SQLite database with every migration applied, made once per test worker: a SQLite
 * test server starts from a copy of it (as a PostgreSQL one from the run's migrated template),
 * not by running the migrations again. What the migrations do is tested by the files about them.
 */
function migratedSqliteFile(): Promise<string> {
  return (sqliteTemplate ??= (async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-template-')), 'mailroom.db');
    await openDatabase({ file }).close();
    return file;
  })());
}

function smtpTransport(mailroom: Mailroom) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: mailroom.smtp.port,
    secure: false,
    ignoreTLS: true,
    pool: false,
  });
}

/**
 * Polls until `check` returns a truthy value, or throws when `timeoutMs` has passed. The bound only
 * catches what never happens: it is sized for a busy machine (a load of 15-25 on 2 cores made 10 s
 * waits for a server's next step fail), and a passing wait ends at once whatever it says.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
