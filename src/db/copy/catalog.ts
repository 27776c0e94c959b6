import type { Db } from '../connection.js';
import { postgresCatalog } from './catalog-postgres.js';
import { sqliteCatalog } from './catalog-sqlite.js';
import type { Catalog } from './table-info.js';

/** The tables of `db` and its counters, asked of the database itself. */
export function catalogOf(db: Db): Promise<Catalog> {
  return db.engine === 'sqlite' ? sqliteCatalog(db) : postgresCatalog(db);
}
