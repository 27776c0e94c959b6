/** A table as the copy sees it, asked of the database (never a list kept in the code). */
export interface TableInfo {
  name: string;
  /**
   * The columns to read and write, in the table's order. On SQLite it starts with `rowid` when
   * the table has one of its own (not an INTEGER PRIMARY KEY under another name).
   */
  columns: string[];
  /** The key rows are read in order of, to page through the table. */
  key: string[];
  /** Tables this one's foreign keys point at (itself left out). */
  parents: string[];
  /**
   * The columns a counter hands out values for: identities (PostgreSQL), or the INTEGER PRIMARY
   * KEY of an AUTOINCREMENT table (SQLite's sqlite_sequence). None where the engine simply takes
   * the largest value plus one.
   */
  counters: string[];
}

export interface Catalog {
  tables: Map<string, TableInfo>;
  /** What the counter of a column last handed out; undefined when it has handed out none. */
  counterOf(table: string, column: string): Promise<number | undefined>;
  /** Sets the counter of a column so that the next value it hands out is `last` + 1. */
  setCounter(table: string, column: string, last: number): Promise<void>;
}

/** The engine's own tables and the full-text index, which the copy rebuilds instead. */
export const NOT_COPIED = new Set(['schema_migrations', 'messages_fts']);

/** The tables in an order where every table comes after the tables it refers to. */
export function parentsFirst(tables: TableInfo[]): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const order: TableInfo[] = [];
  const visit = (table: TableInfo) => {
    if (done.has(table.name)) return;
    if (visiting.has(table.name)) {
      throw new Error(`the foreign keys of ${table.name} go round in a circle: no order copies it`);
    }
    visiting.add(table.name);
    for (const parent of table.parents) {
      const p = byName.get(parent);
      if (p) visit(p);
    }
    visiting.delete(table.name);
    done.add(table.name);
    order.push(table);
  };
  for (const table of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(table);
  return order;
}

export const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
