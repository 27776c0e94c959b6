import type { Catalog, TableInfo } from './table-info.js';
import { NOT_COPIED, parentsFirst } from './table-info.js';
import { CopyRefused } from './refused.js';

/** One table to copy: how to read it from the source and what to write on the target. */
export interface TablePlan {
  name: string;
  /** The columns both sides have: read from the source, written on the target. */
  columns: string[];
  /** The source's key, which the rows are paged by. */
  key: string[];
  /** The target's counters and, where the source keeps one for the same column, its own. */
  counters: { column: string; sourceKeeps: boolean }[];
}

/**
 * What to copy, in foreign-key order (parents first): every table of the target's schema but the
 * migration record and the full-text index. The source must have the same tables and columns;
 * the one column the engines spell differently is SQLite's implicit rowid, copied where both
 * sides have it (a real `rowid` column on PostgreSQL) and left to the engine elsewhere.
 */
export function planCopy(
  source: Catalog,
  target: Catalog,
  names: { source: string; target: string },
): TablePlan[] {
  const differs = (what: string) =>
    new CopyRefused(
      'config_error',
      `the source ${names.source} and the target ${names.target} have different schemas (${what}): ` +
        'are they both at this release of Mailroom?',
    );
  for (const name of source.tables.keys()) {
    if (!NOT_COPIED.has(name) && !target.tables.has(name)) throw differs(`the target has no table ${name}`);
  }
  const tables: TableInfo[] = [];
  for (const table of target.tables.values()) {
    if (NOT_COPIED.has(table.name)) continue;
    const from = source.tables.get(table.name);
    if (!from) throw differs(`the source has no table ${table.name}`);
    const missing = [
      ...table.columns
        .filter((c) => c !== 'rowid' && !from.columns.includes(c))
        .map((c) => `the source has no ${table.name}.${c}`),
      ...from.columns
        .filter((c) => c !== 'rowid' && !table.columns.includes(c))
        .map((c) => `the target has no ${table.name}.${c}`),
    ];
    if (missing.length > 0) throw differs(missing[0]!);
    if (from.key.length === 0) throw differs(`${table.name} has no primary key on the source`);
    tables.push({ ...table, parents: [...new Set([...table.parents, ...from.parents])] });
  }
  return parentsFirst(tables).map((table) => {
    const from = source.tables.get(table.name)!;
    return {
      name: table.name,
      columns: table.columns.filter((c) => from.columns.includes(c)),
      key: from.key,
      counters: table.counters.map((column) => ({ column, sourceKeeps: from.counters.includes(column) })),
    };
  });
}
