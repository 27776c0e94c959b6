import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { knownMigrations } from '../../src/db/migrate.js';
import { MIGRATION_LOCK_KEY } from '../../src/db/postgres/lock-keys.js';
import { runPostgresMigrations } from '../../src/db/postgres/migrate.js';
import type { PostgresDatabases } from '../helpers/postgres.js';
import { testPostgres } from '../helpers/test-postgres.js';

const shipped = fileURLToPath(new URL('../../migrations/postgres/', import.meta.url));
const files = knownMigrations(shipped);

describe('PostgreSQL migrations', () => {
  let server: PostgresDatabases;
  const pools: pg.Pool[] = [];
  let tmp: string;

  /** A pool on a new database: what one Mailroom node holds. */
  const node = (url: string) => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    pools.push(pool);
    return pool;
  };

  const recorded = async (pool: pg.Pool) =>
    (await pool.query<{ name: string; applied_at: string }>('SELECT * FROM schema_migrations ORDER BY name'))
      .rows;

  beforeAll(async () => {
    server = await testPostgres();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-pg-migrations-'));
  });

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('applies every migration once when two nodes start together', async () => {
    const url = await server.createDatabase();
    const [a, b] = await Promise.all([runPostgresMigrations(node(url)), runPostgresMigrations(node(url))]);
    expect([...a, ...b].sort()).toEqual(files);
    expect([a.length, b.length].sort()).toEqual([0, files.length]);
    expect((await recorded(node(url))).map((r) => r.name)).toEqual(files);
  });

  it('makes a node wait while another holds the migration lock, then finds nothing left to do', async () => {
    const url = await server.createDatabase();
    // A third party holds the lock: both nodes must wait for it.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    let waiting = 0;
    let bothWaiting: () => void;
    const bothWait = new Promise<void>((resolve) => (bothWaiting = resolve));
    const onWait = (message: string) => {
      expect(message).toMatch(/another Mailroom node is upgrading/);
      if (++waiting === 2) bothWaiting();
    };
    const runs = [node(url), node(url)].map((pool) => runPostgresMigrations(pool, { onWait }));
    await bothWait;
    const users = await node(url).query("SELECT to_regclass('users')::text AS t");
    expect(users.rows[0].t).toBeNull();
    await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
    await holder.end();
    const applied = await Promise.all(runs);
    expect(applied.map((a) => a.length).sort()).toEqual([0, files.length]);
    expect((await recorded(node(url))).map((r) => r.name)).toEqual(files);
  });

  it('does nothing when run again', async () => {
    const pool = node(await server.createDatabase());
    expect(await runPostgresMigrations(pool)).toEqual(files);
    const before = await recorded(pool);
    expect(await runPostgresMigrations(pool)).toEqual([]);
    expect(await recorded(pool)).toEqual(before);
  });

  it('refuses, in one line and changing nothing, a database a newer Mailroom migrated', async () => {
    const pool = node(await server.createDatabase());
    // An older state: the first three migrations, then one this release does not know.
    const older = path.join(tmp, 'older');
    fs.mkdirSync(older);
    for (const file of files.slice(0, 3)) fs.copyFileSync(path.join(shipped, file), path.join(older, file));
    await runPostgresMigrations(pool, { dir: older });
    await pool.query(
      "INSERT INTO schema_migrations (name, applied_at) VALUES ('042_from_the_future.sql', '2030-01-01T00:00:00.000Z')",
    );
    const before = await recorded(pool);

    const error = await runPostgresMigrations(pool).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain('042_from_the_future.sql');
    expect(message).toContain(files.at(-1));
    expect(message).toMatch(
      /^PostgreSQL database mailroom_\w+ was upgraded by a newer Mailroom.*Upgrade Mailroom/,
    );
    expect(await recorded(pool)).toEqual(before);
    const columns = await pool.query(
      "SELECT 1 FROM information_schema.columns WHERE table_name = 'messages' AND column_name = 'address_totals'",
    );
    expect(columns.rowCount).toBe(0);
  });

  it('leaves the schema as it was when a migration fails', async () => {
    const pool = node(await server.createDatabase());
    const broken = path.join(tmp, 'broken');
    fs.mkdirSync(broken);
    for (const file of files) fs.copyFileSync(path.join(shipped, file), path.join(broken, file));
    fs.writeFileSync(path.join(broken, '999_broken.sql'), 'ALTER TABLE no_such_table ADD COLUMN x text;');

    await expect(runPostgresMigrations(pool, { dir: broken })).rejects.toThrow(/no_such_table/);
    const tables = await pool.query(
      'SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema()',
    );
    expect(tables.rowCount).toBe(0);
  });
});
