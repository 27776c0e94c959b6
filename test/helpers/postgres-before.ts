import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { knownMigrations } from '../../src/db/migrate.js';
import { runPostgresMigrations } from '../../src/db/postgres/migrate.js';
import { testPostgres } from './test-postgres.js';

const shipped = fileURLToPath(new URL('../../migrations/postgres/', import.meta.url));

/**
 * A new database on the run's PostgreSQL built by the migrations before `migration` (its number,
 * '029'), holding user 1 with inbox 1 (u@x.test) and its folder 1 (INBOX) as a server would have
 * left them; `fill` writes more through a connection to it. Its URL.
 */
export async function postgresBefore(
  migration: string,
  fill: (client: pg.Client) => Promise<void>,
): Promise<string> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `mailroom-pg-before-${migration}-`));
  try {
    for (const file of knownMigrations(shipped).filter((f) => f < migration))
      fs.copyFileSync(path.join(shipped, file), path.join(tmp, file));
    const url = await (await testPostgres()).createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await runPostgresMigrations(client, { dir: tmp });
      await client.query(`
        INSERT INTO users (id, name, created_at) VALUES (1, 'u', 'now');
        INSERT INTO inboxes (id, address, user_id, kind, created_at) VALUES (1, 'u@x.test', 1, 'local', 'now');
        INSERT INTO folders (id, inbox_id, name, created_at) VALUES (1, 1, 'INBOX', 'now');
        -- As a server that made these rows would have left the counters (later migrations add rows).
        SELECT setval(pg_get_serial_sequence('users', 'id'), 1), setval(pg_get_serial_sequence('inboxes', 'id'), 1),
               setval(pg_get_serial_sequence('folders', 'id'), 1);`);
      await fill(client);
    } finally {
      await client.end();
    }
    return url;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
