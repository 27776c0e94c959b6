import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './connection.js';

const migrationsDir = fileURLToPath(new URL('../../migrations/', import.meta.url));

/**
 * Applies each migrations/NNN_name.sql not yet recorded in schema_migrations, in order, each in
 * its own transaction. Recording every file (not a high-water mark) means a migration merged
 * with a lower number than one already applied still runs.
 */
export function runMigrations(db: Db, dir = migrationsDir): string[] {
  db.sqlite.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)',
  );
  const applied = new Set(
    (db.sqlite.prepare('SELECT name FROM schema_migrations').all() as { name: string }[]).map((r) => r.name),
  );
  const files = fs
    .readdirSync(dir)
    .filter((name) => /^\d{3}_.+\.sql$/.test(name))
    .sort();
  const ran: string[] = [];
  for (const file of files) {
    if (applied.has(file)) continue;
    const sql = fs.readFileSync(`${dir}/${file}`, 'utf8');
    db.sqlite.transaction(() => {
      db.sqlite.exec(sql);
      db.sqlite
        .prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)')
        .run(file, new Date().toISOString());
    })();
    ran.push(file);
  }
  return ran;
}
