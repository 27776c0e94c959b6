import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { mailroom } from '../helpers/cli.js';
import { freePort } from '../helpers/host.js';
import { testPostgres } from '../helpers/test-postgres.js';

// Each test starts mailroom processes one after another (each bounded by its own 60 s in
// helpers/cli.ts); at a load of 15 on two cores one takes several seconds, so the limit is theirs.
describe('MAILROOM_DATABASE_URL that cannot be used', { timeout: 180_000 }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-pg-start-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('stops the start with one line naming the URL without its password and the cause', async () => {
    // Nothing listens on this port.
    const port = await freePort();
    const url = `postgres://mailroom:hunter2-secret@127.0.0.1:${port}/mailroom?sslmode=disable`;
    const result = await mailroom(['serve', '--http-port', '0', '--smtp-port', '0'], {
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_DATABASE_URL: url,
      MAILROOM_BOOTSTRAP: 'false',
    });
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`postgres://mailroom@127.0.0.1:${port}/mailroom`);
    expect(lines[0]).toContain('ECONNREFUSED');
    expect(result.stderr + result.stdout).not.toContain('hunter2');
  });

  it('has mailroom backup and restore point to the engine own tools instead of copying a file', async () => {
    const url = 'postgres://mailroom:hunter2-secret@127.0.0.1:1/mailroom';
    const backup = await mailroom(['backup', path.join(dataDir, 'copy.db'), '--database-url', url], {});
    expect(backup.code).not.toBe(0);
    expect(backup.stderr).toContain('pg_dump');
    const restore = await mailroom(['restore', path.join(dataDir, 'copy.db'), '--database-url', url], {});
    expect(restore.code).not.toBe(0);
    expect(restore.stderr).toContain('pg_restore');
    expect(backup.stderr + restore.stderr).not.toContain('hunter2');
    expect(fs.existsSync(path.join(dataDir, 'copy.db'))).toBe(false);
  });

  it('refuses admin commands on a database without Mailroom tables unless --init, and changes nothing', async () => {
    const url = await (await testPostgres()).createDatabase();
    const tables = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
        );
        return rows[0]!.n;
      } finally {
        await client.end();
      }
    };
    for (const args of [
      ['user', 'list'],
      ['user', 'add', 'alice'],
      ['domain', 'list'],
    ]) {
      const refused = await mailroom([...args, '--database-url', url], { MAILROOM_DATA_DIR: dataDir });
      expect(refused.code, refused.stderr).toBe(1);
      const lines = refused.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /no Mailroom database at postgres:\/\/.*--database-url or MAILROOM_DATABASE_URL.*--init/,
      );
    }
    const json = await mailroom(['user', 'list', '--json'], {
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_DATABASE_URL: url,
    });
    expect(JSON.parse(json.stdout).error.code).toBe('no_database');
    expect(await tables()).toBe(0);

    const created = await mailroom(['user', 'add', 'alice', '--init', '--json', '--database-url', url], {
      MAILROOM_DATA_DIR: dataDir,
    });
    expect(created.code, created.stderr).toBe(0);
    expect(await tables()).toBeGreaterThan(0);
    const listed = await mailroom(['user', 'list', '--json', '--database-url', url], {
      MAILROOM_DATA_DIR: dataDir,
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).users.map((u: { name: string }) => u.name)).toContain('alice');
  });
});
