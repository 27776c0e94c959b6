import type { Db } from '../connection.js';
import type { Catalog, TableInfo } from './table-info.js';
import { quoted } from './table-info.js';

const IN_SCHEMA = `JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()`;

/** PostgreSQL's tables in the current schema, from pg_catalog. Generated columns are left out. */
export async function postgresCatalog(db: Db): Promise<Catalog> {
  const columns = await db.rawAll<{ table: string; name: string; identity: boolean }>(
    `SELECT c.relname AS table, a.attname AS name, a.attidentity <> '' AS identity
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid ${IN_SCHEMA}
       AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     ORDER BY c.relname, a.attnum`,
  );
  const keys = await db.rawAll<{ table: string; name: string }>(
    `SELECT c.relname AS table, a.attname AS name
     FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
       CROSS JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum
     ${IN_SCHEMA} AND k.contype = 'p'
     ORDER BY c.relname, u.ord`,
  );
  const parents = await db.rawAll<{ table: string; parent: string }>(
    `SELECT DISTINCT c.relname AS table, p.relname AS parent
     FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
     ${IN_SCHEMA} AND k.contype = 'f'`,
  );
  const tables = new Map<string, TableInfo>();
  for (const column of columns) {
    let table = tables.get(column.table);
    if (!table) {
      table = { name: column.table, columns: [], key: [], parents: [], counters: [] };
      tables.set(column.table, table);
    }
    table.columns.push(column.name);
    if (column.identity) table.counters.push(column.name);
  }
  for (const key of keys) tables.get(key.table)?.key.push(key.name);
  for (const { table, parent } of parents) {
    if (parent !== table) tables.get(table)?.parents.push(parent);
  }
  return {
    tables,
    async counterOf(table, column) {
      const row = await db.rawFirst<{ last: number | null }>(
        'SELECT pg_sequence_last_value(pg_get_serial_sequence(?, ?)::regclass) AS last',
        quoted(table),
        column,
      );
      return row?.last ?? undefined;
    },
    async setCounter(table, column, last) {
      // setval(seq, 1, false): nothing handed out yet, the next value is 1.
      await db.rawFirst(
        'SELECT setval(pg_get_serial_sequence(?, ?), ?, ?)',
        quoted(table),
        column,
        Math.max(last, 1),
        last > 0,
      );
    },
  };
}
