/** A row waiting to be inserted, by column. */
export type PendingRow = Record<string, unknown>;

/** One multi-row insert: the SQL with $n placeholders and its parameters. */
export interface InsertStatement {
  sql: string;
  params: unknown[];
}

/** Parameters in one statement at most (PostgreSQL's limit is 65,535). */
const MAX_PARAMS = 30_000;

/**
 * Rows a transaction inserts later, together (Db.insertSoon): a group commit of 20 messages
 * writes their rows in one statement per table instead of one round trip each. Tables are
 * written in the order first queued, so a row comes after the rows it refers to.
 */
export class PendingInserts {
  private readonly tables = new Map<string, PendingRow[]>();

  get size(): number {
    return this.tables.size;
  }

  add(table: string, row: PendingRow): void {
    const rows = this.tables.get(table) ?? [];
    rows.push(row);
    this.tables.set(table, rows);
  }

  /** Whether a row waiting for `table` is one `matches` picks. */
  some(matches: (table: string, row: PendingRow) => boolean): boolean {
    for (const [table, rows] of this.tables) if (rows.some((row) => matches(table, row))) return true;
    return false;
  }

  /** The inserts that write every waiting row, in order; nothing waits after. */
  take(): InsertStatement[] {
    const statements: InsertStatement[] = [];
    for (const [table, rows] of this.tables) statements.push(...insertsFor(table, rows));
    this.tables.clear();
    return statements;
  }
}

/** Rows with the same columns one after another share a statement, up to MAX_PARAMS parameters. */
function insertsFor(table: string, rows: PendingRow[]): InsertStatement[] {
  const statements: InsertStatement[] = [];
  let columns: string[] = [];
  let params: unknown[] = [];
  let values: string[] = [];
  const flush = () => {
    if (values.length === 0) return;
    const names = columns.map((c) => `"${c}"`).join(', ');
    statements.push({ sql: `insert into "${table}" (${names}) values ${values.join(', ')}`, params });
    params = [];
    values = [];
  };
  for (const row of rows) {
    const own = Object.keys(row).filter((c) => row[c] !== undefined);
    if (own.join() !== columns.join() || params.length + own.length > MAX_PARAMS) {
      flush();
      columns = own;
    }
    values.push(`(${own.map((_, i) => `$${params.length + i + 1}`).join(', ')})`);
    params.push(...own.map((c) => row[c]));
  }
  flush();
  return statements;
}
