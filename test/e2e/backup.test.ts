import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailroom } from '../../src/mailroom.js';
import { mailroom as cli } from '../helpers/cli.js';
import { onPostgres, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';

/** Sends one message after another until stopped; each subject is recorded once answered 250. */
function deliverContinuously(server: TestServer) {
  const acked: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let stopped = false;
  let sent = 0;
  const loop = (async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    while (!stopped) {
      const subject = `steady ${++sent}`;
      await smtp.command('MAIL FROM:<alice@example.com>');
      await smtp.command(`RCPT TO:<${server.inbox}>`);
      const reply = await smtp.data(rawMessage({ from: 'alice@example.com', to: server.inbox, subject }));
      if (reply.code === 250) acked.push(subject);
      for (const waiter of waiters.splice(0)) {
        if (acked.length >= waiter.count) waiter.resolve();
        else waiters.push(waiter);
      }
    }
    await smtp.close();
  })();
  return {
    acked,
    /** Resolves once `count` more messages have been answered 250. */
    more(count: number) {
      return new Promise<void>((resolve) => waiters.push({ count: acked.length + count, resolve }));
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

// On PostgreSQL: backup and restore copy the SQLite file (PostgreSQL is backed up with pg_dump).
describe.skipIf(onPostgres)('mailroom backup and restore', { timeout: 180_000 }, () => {
  let server: TestServer;
  let parent: string;
  beforeAll(async () => {
    server = await startServer();
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-backup-'));
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(parent, { recursive: true, force: true });
  });

  it('backs up a server receiving mail without a pause, and the restore holds every message acknowledged before', async () => {
    const backupFile = path.join(parent, 'mailroom-backup.db');
    const delivery = deliverContinuously(server);
    let ackedBefore: string[];
    let ackedDuring: number;
    try {
      await delivery.more(20);
      ackedBefore = [...delivery.acked];
      const backup = await cli(['backup', backupFile, '--json'], { MAILROOM_DATA_DIR: server.dataDir });
      ackedDuring = delivery.acked.length - ackedBefore.length;
      expect(backup.code, backup.stderr).toBe(0);
      expect(JSON.parse(backup.stdout).backup).toMatchObject({ file: backupFile, bytes: expect.any(Number) });
      await delivery.more(5);
    } finally {
      await delivery.stop();
    }
    // The server went on answering 250 while the backup ran in its own process.
    expect(ackedDuring).toBeGreaterThan(0);
    expect((fs.statSync(backupFile).mode & 0o777).toString(8)).toBe('600');
    // One file: no -wal beside it holding part of the data.
    expect(fs.existsSync(`${backupFile}-wal`)).toBe(false);

    // A new data directory: the backup and the secret.key kept with it.
    const restoredDir = path.join(parent, 'restored');
    fs.mkdirSync(restoredDir, { mode: 0o700 });
    fs.copyFileSync(path.join(server.dataDir, 'secret.key'), path.join(restoredDir, 'secret.key'));
    const restore = await cli(['restore', backupFile], { MAILROOM_DATA_DIR: restoredDir });
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/^restored .* 1 user\(s\), 1 inbox\(es\), \d+ message\(s\)/);

    const check = new BetterSqlite3(path.join(restoredDir, 'mailroom.db'), { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();

    const restored = createMailroom({
      env: {},
      dataDir: restoredDir,
      httpPort: 0,
      smtpPort: 0,
      verifyAuth: false,
      bootstrap: false,
      logger: pino({ level: 'silent' }),
    });
    await restored.start();
    try {
      const subjects: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `account=${server.inbox}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await fetch(`http://127.0.0.1:${restored.http.port}/api/v1/emails?${query}`, {
          headers: { authorization: `Bearer ${server.key}` },
        });
        expect(res.status).toBe(200);
        const page = (
          (await res.json()) as { data: { emails: { subject: string }[]; nextCursor: string | null } }
        ).data;
        subjects.push(...page.emails.map((e) => e.subject));
        cursor = page.nextCursor;
      } while (cursor);
      expect(subjects).toEqual(expect.arrayContaining(ackedBefore));
      expect(new Set(subjects).size).toBe(subjects.length);
    } finally {
      await restored.stop();
    }
  });

  it('refuses to replace a database without --force, and never under a running server', async () => {
    const backupFile = path.join(parent, 'second.db');
    const env = { MAILROOM_DATA_DIR: server.dataDir };
    expect((await cli(['backup', backupFile], env)).code).toBe(0);
    const again = await cli(['backup', backupFile], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists: add --force/);

    const noForce = await cli(['restore', backupFile], env);
    expect(noForce.code).toBe(1);
    expect(noForce.stderr).toMatch(/already holds a database: add --force/);

    const running = await cli(['restore', backupFile, '--force', '--json'], env);
    expect(running.code).toBe(1);
    expect(JSON.parse(running.stdout).error.message).toMatch(/in use by another process .*stop it/);
    // The server's database is untouched and it goes on serving.
    expect((await server.api(`/emails?account=${server.inbox}&limit=1`)).status).toBe(200);
  });

  it('says so when the backup does not open with the secret in use, or there is none', async () => {
    const backupFile = path.join(parent, 'third.db');
    expect((await cli(['backup', backupFile], { MAILROOM_DATA_DIR: server.dataDir })).code).toBe(0);

    const noSecret = await cli(['restore', backupFile], { MAILROOM_DATA_DIR: path.join(parent, 'empty') });
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toMatch(/no secret to open .*copy the secret\.key kept with the backup/);

    const wrong = await cli(['restore', backupFile], {
      MAILROOM_DATA_DIR: path.join(parent, 'wrong'),
      MAILROOM_SECRET: 'a different secret than the one it was sealed with',
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/sealed with another secret than the one in use/);
    expect(fs.existsSync(path.join(parent, 'wrong', 'mailroom.db'))).toBe(false);
  });
});
