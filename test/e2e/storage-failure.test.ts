import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import { sqliteOf } from '../helpers/sqlite-of.js';

// On PostgreSQL: the failures are SQLite triggers in the file (postgres-outage covers PostgreSQL).
describe.skipIf(onPostgres)('a storage failure while receiving', () => {
  let server: TestServer;
  let bob: { key: string; inbox: string; userId: number };
  beforeAll(async () => {
    server = await startServer();
    bob = await server.addUser('bob');
  });
  afterAll(async () => server.stop());

  // Failures are injected as triggers in the database file itself (not TEMP), so they reach every
  // connection that writes mail, whichever thread holds it.
  const sqlite = () => sqliteOf(server.mailroom.db);
  /** Row counts of every table a received message touches. */
  const footprint = () =>
    Object.fromEntries(
      ['messages', 'message_raw', 'attachments', 'threads', 'events', 'messages_fts'].map((table) => [
        table,
        (sqlite().prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
      ]),
    );
  const uidNext = () => (sqlite().prepare('SELECT sum(uid_next) AS n FROM inboxes').get() as { n: number }).n;

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
    const before = footprint();
    const uids = uidNext();
    sqlite().exec(
      `CREATE TRIGGER fail_raw BEFORE INSERT ON message_raw BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
    );
    try {
      const reply = await send([server.inbox], 'Lost?');
      expect(reply.code).toBe(451);
      expect(reply.text).toMatch(/^4\.3\.0 /);
      expect((await server.api(`/emails?account=${server.inbox}`)).status).toBe(200);
    } finally {
      sqlite().exec('DROP TRIGGER fail_raw');
    }
    expect(footprint()).toEqual(before);
    expect(uidNext()).toBe(uids);
    expect((await server.api(`/emails?account=${server.inbox}`)).json.data.emails).toEqual([]);

    // The sender retries, as SMTP senders do after a 4xx: now it is stored, once.
    const retry = await send([server.inbox], 'Lost?');
    expect(retry.code).toBe(250);
    const emails = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails;
    expect(emails).toEqual([expect.objectContaining({ uid: 1, subject: 'Lost?' })]);
  });

  it('stores no copy at all when the copy for one of several inboxes fails', async () => {
    const before = footprint();
    const bobInbox = (await server.mailroom.deps.store.inboxes.findByAddress(bob.inbox))!;
    sqlite().exec(
      `CREATE TRIGGER fail_bob BEFORE INSERT ON messages WHEN NEW.inbox_id = ${bobInbox.id}
       BEGIN SELECT RAISE(ABORT, 'no space for bob'); END`,
    );
    try {
      const reply = await send([server.inbox, bob.inbox], 'Both or neither');
      expect(reply.code).toBe(451);
    } finally {
      sqlite().exec('DROP TRIGGER fail_bob');
    }
    expect(footprint()).toEqual(before);
    const mine = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails;
    expect(mine.map((e: { subject: string }) => e.subject)).not.toContain('Both or neither');
  });

  it('does not fail a neighbour that was committed in the same batch', async () => {
    const bobInbox = (await server.mailroom.deps.store.inboxes.findByAddress(bob.inbox))!;
    sqlite().exec(
      `CREATE TRIGGER fail_bob BEFORE INSERT ON messages WHEN NEW.inbox_id = ${bobInbox.id}
       BEGIN SELECT RAISE(ABORT, 'no space for bob'); END`,
    );
    let replies: Awaited<ReturnType<typeof send>>[];
    try {
      replies = await Promise.all([
        send([bob.inbox], 'Bad neighbour'),
        send([server.inbox], 'Good neighbour 1'),
        send([server.inbox], 'Good neighbour 2'),
      ]);
    } finally {
      sqlite().exec('DROP TRIGGER fail_bob');
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
function serve(dataDir: string): Promise<Running> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), 'serve', '--http-port', '0', '--smtp-port', '0'],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        MAILROOM_DATA_DIR: dataDir,
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
  const children: ChildProcess[] = [];
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-crash-'));
  });
  afterAll(() => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every message that was answered 250 after kill -9 and a restart', async () => {
    const first = await serve(dataDir);
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

    const second = await serve(dataDir);
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
