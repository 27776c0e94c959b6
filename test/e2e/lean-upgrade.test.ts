import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  addBulkMail,
  answersBeforeLean,
  beforeLeanPostgres,
  beforeLeanSqlite,
  oldPostgres,
  oldSqlite,
  postgresCounters,
} from '../helpers/before-lean.js';
import type { OldLayout } from '../helpers/before-lean.js';
import { BEFORE_LEAN_SECRET, recordAnswers } from '../helpers/lean-answers.js';
import type { Answer } from '../helpers/lean-answers.js';
import { spawnServe, startServe } from '../helpers/serve-process.js';
import { onPostgres } from '../helpers/server.js';
import { testPostgres } from '../helpers/test-postgres.js';

/**
 * Issue 31, target 5: a database filled by the release before migration 017 (fixtures/db/
 * before-lean.sql.gz, with the answers that release gave on it) is converted at the next start
 * to the compact layout, and every answer about its mail is the same afterwards: lists, reads,
 * sources byte for byte, attachments, searches, threads. On each engine.
 */
async function recordRaw(base: string, url: string): Promise<{ length: number; sha256: string }> {
  const res = await fetch(`${base}/api/v1${url}`, {
    headers: { authorization: `Bearer ${answersBeforeLean().apiKey}` },
  });
  const body = Buffer.from(await res.arrayBuffer());
  return { length: body.length, sha256: crypto.createHash('sha256').update(body).digest('hex') };
}

/**
 * What mail stored before a field was added to the Email reads as: `screening` (migration 022)
 * clear, `autoReply` (021) false, `spam` (023) null, as the upgrade notes say.
 */
const ADDED_SINCE: Record<string, string> = {
  screening: JSON.stringify({ verdict: 'clear', reasons: [], hidden: '' }),
  autoReply: 'false',
  spam: 'null',
};

/** Items of a list added since the fixture was recorded: every inbox's Outbox (024), empty. */
const ITEMS_ADDED_SINCE = new Set([
  JSON.stringify({ name: 'Outbox', specialUse: '\\Outbox', total: 0, unread: 0 }),
]);

/**
 * An answer without what was added to the Email since the fixture was recorded, when it holds
 * what mail stored before it reads as (ADDED_SINCE, ITEMS_ADDED_SINCE); any other value fails
 * the test.
 */
function asBefore(answer: Answer): Answer {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value))
      return value.filter((item) => !ITEMS_ADDED_SINCE.has(JSON.stringify(item))).map(strip);
    if (!value || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (ADDED_SINCE[key] === JSON.stringify(inner)) continue;
      out[key] = strip(inner);
    }
    return out;
  };
  return answer.json === undefined ? answer : { ...answer, json: strip(answer.json) };
}

describe('upgrading mail stored before migration 017', { timeout: 300_000 }, () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-lean-upgrade-'));
  const before = answersBeforeLean();
  afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

  /** A data directory (and on PostgreSQL a database) holding the fixture in the old layout. */
  async function oldInstallation(
    name: string,
  ): Promise<{ env: Record<string, string>; old: () => Promise<OldLayout> }> {
    const dataDir = path.join(parent, name);
    const env: Record<string, string> = {
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_SECRET: BEFORE_LEAN_SECRET,
      MAILROOM_BOOTSTRAP: 'false',
    };
    if (onPostgres) {
      fs.mkdirSync(dataDir, { mode: 0o700 });
      const url = await (await testPostgres()).createDatabase();
      await beforeLeanPostgres(url);
      env.MAILROOM_DATABASE_URL = url;
      return { env, old: () => oldPostgres(url) };
    }
    const file = beforeLeanSqlite(dataDir);
    return { env, old: async () => oldSqlite(file) };
  }

  /** Rows filed before migration 013 kept no list columns: the upgrade works them out. */
  async function asFiledBefore013(old: OldLayout): Promise<void> {
    await old.run('UPDATE messages SET preview = NULL, list_extracted_text = NULL WHERE id % 3 = 0');
  }

  async function columnsOf(old: OldLayout, table: string): Promise<string[]> {
    const rows = onPostgres
      ? await old.all(
          'SELECT column_name AS name FROM information_schema.columns WHERE table_name = ?',
          table,
        )
      : await old.all(`SELECT name FROM pragma_table_info('${table}')`);
    return rows.map((r) => String(r.name));
  }

  // One installation for both: a start that converts everything is the second start here (it
  // converts all that is left), so an uninterrupted upgrade is proven on the way.
  it('answers every question about the old mail as before, in the compact layout, going on where a start killed in the middle of it stopped', async () => {
    const { env, old } = await oldInstallation('killed');
    const db = await old();
    await asFiledBefore013(db);
    const originals = await db.all(
      'SELECT m.id, i.address, m.uid, f.name AS folder FROM messages m JOIN inboxes i ON i.id = m.inbox_id JOIN folders f ON f.id = m.folder_id ORDER BY m.id',
    );
    // Batches of 500 (49 messages a round) to stop the first start in the middle of: 15 on SQLite,
    // which converts them fast; 5 on PostgreSQL, each over a second there, where the second start
    // took 24 of the file's 38 s converting 15.
    const bulk = await addBulkMail(db, onPostgres ? 50 : 150);
    if (onPostgres) await postgresCounters(db);
    await db.close();

    // The first start is killed (SIGKILL) once it has committed a batch of the conversion.
    const child = await startServe(env);
    let out = '';
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (/converted \d+ of \d+/.test(out)) resolve();
      });
      void exited.then(() => reject(new Error(`the start ended before converting a batch:\n${out}`)));
    });
    child.kill('SIGKILL');
    await exited;
    const half = await old();
    const left = Number((await half.all('SELECT count(*) AS n FROM messages WHERE source_id IS NULL'))[0]!.n);
    await half.close();
    expect(left).toBeGreaterThan(0);

    const server = await spawnServe(env);
    try {
      expect(server.stdout()).toMatch(new RegExp(`converting ${left} stored message`));
      expect(server.stdout()).toMatch(/converted \d+ of \d+ message\(s\) to the compact layout/);
      const after = await recordAnswers(server.baseUrl, before.apiKey);
      expect(after.map((a) => a.url)).toEqual(before.answers.map((a) => a.url));
      for (const [i, answer] of after.entries())
        expect(asBefore(answer), answer.url).toEqual(before.answers[i]);
      // The copies converted after the restart: each source byte for byte as its original's was.
      const top = Math.max(...originals.map((o) => Number(o.id)));
      const listed = await fetch(`${server.baseUrl}/api/v1/emails?account=bulk@mailroom.test&limit=3`, {
        headers: { authorization: `Bearer ${before.apiKey}` },
      });
      const uids = ((await listed.json()) as { data: { emails: { uid: number }[] } }).data.emails.map(
        (e) => e.uid,
      );
      expect(uids).toHaveLength(3);
      for (const uid of uids) {
        // Copy `uid` is of the message whose id is uid less a multiple of the top id (addBulkMail).
        const original = originals.find((o) => Number(o.id) === ((uid - 1) % top) + 1)!;
        const expected = before.answers.find(
          (a) =>
            a.url === `/emails/${original.uid}/raw?account=${original.address}&folder=${original.folder}`,
        );
        const raw = await recordRaw(server.baseUrl, `/emails/${uid}/raw?account=bulk@mailroom.test`);
        expect(raw, `bulk uid ${uid}`).toEqual(expected!.bytes);
      }
    } finally {
      await server.stop();
    }
    const done = await old();
    try {
      const counted = await done.all(
        "SELECT count(*) AS n FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE i.address = 'bulk@mailroom.test' AND m.source_id IS NOT NULL",
      );
      expect(Number(counted[0]!.n)).toBe(bulk);
      expect(await columnsOf(done, 'messages')).not.toContain('text');
      expect(await columnsOf(done, 'message_raw')).toEqual([]);
      expect(await done.all('SELECT id FROM messages WHERE source_id IS NULL OR list_text IS NULL')).toEqual(
        [],
      );
    } finally {
      await done.close();
    }
  });
});
