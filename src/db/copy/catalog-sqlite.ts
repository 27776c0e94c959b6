import type { Db } from '../connection.js';
import type { Catalog, TableInfo } from './table-info.js';

interface TableListRow {
  name: string;
  type: string;
  wr: number;
}
interface ColumnRow {
  name: string;
  type: string;
  pk: number;
}

/**
 * SQLite's tables from its own pragmas. Virtual tables (the FTS5 index) and their shadow tables
 * are left out, as are SQLite's internal sqlite_* tables.
 */
export async function sqliteCatalog(db: Db): Promise<Catalog> {
  const list = await db.rawAll<TableListRow>(
    "SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
  );
  const tables = new Map<string, TableInfo>();
  for (const { name, wr } of list) {
    const columns = await db.rawAll<ColumnRow>(
      'SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid',
      name,
    );
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    // A lone INTEGER PRIMARY KEY is the rowid under its own name.
    const alias = pk.length === 1 && pk[0]!.type.toUpperCase() === 'INTEGER' ? pk[0]!.name : undefined;
    const ownRowid = wr === 0 && !alias;
    const parents = await db.rawAll<{ table: string }>(
      'SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)',
      name,
    );
    const create = await db.rawFirst<{ sql: string }>(
      "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
      name,
    );
    tables.set(name, {
      name,
      columns: [...(ownRowid ? ['rowid'] : []), ...columns.map((c) => c.name)],
      key: pk.length > 0 ? pk.map((c) => c.name) : ['rowid'],
      parents: parents.map((p) => p.table).filter((p) => p !== name),
      counters: alias && /\bAUTOINCREMENT\b/i.test(create?.sql ?? '') ? [alias] : [],
    });
  }
  const hasSequence = async () =>
    (await db.rawFirst("SELECT 1 AS x FROM sqlite_master WHERE name = 'sqlite_sequence'")) !== undefined;
  return {
    tables,
    async counterOf(table) {
      if (!(await hasSequence())) return undefined;
      const row = await db.rawFirst<{ seq: number }>('SELECT seq FROM sqlite_sequence WHERE name = ?', table);
      return row?.seq;
    },
    async setCounter(table, _column, last) {
      if (last <= 0) return;
      // The inserts made or raised the table's sqlite_sequence row; this raises it further.
      const { changes } = await db.rawRun('UPDATE sqlite_sequence SET seq = ? WHERE name = ?', last, table);
      if (changes === 0)
        await db.rawRun('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)', table, last);
    },
  };
}
