import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './connection.js';

const migrationsDir = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** Applies migrations/NNN_name.sql in order, each in its own transaction, recording user_version. */
export function runMigrations(db: Db, dir = migrationsDir): number {
  const current = db.sqlite.pragma('user_version', { simple: true }) as number;
  const files = fs
    .readdirSync(dir)
    .filter((name) => /^\d{3}_.+\.sql$/.test(name))
    .sort();
  let version = current;
  for (const file of files) {
    const number = Number(file.slice(0, 3));
    if (number <= current) continue;
    const sql = fs.readFileSync(`${dir}/${file}`, 'utf8');
    db.sqlite.transaction(() => {
      db.sqlite.exec(sql);
      db.sqlite.pragma(`user_version = ${number}`);
    })();
    version = number;
  }
  return version;
}
