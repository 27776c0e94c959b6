import type { Db } from '../connection.js';
import type { SearchFields } from '../dialect.js';
import { catalogOf } from './catalog.js';
import type { Row } from './batches.js';
import { insertRows, readInBatches } from './batches.js';
import { planCopy } from './plan.js';
import type { TablePlan } from './plan.js';
import { CopyRefused } from './refused.js';
import { openSource, openTarget, oneLine, shownName } from './sides.js';
import { inSnapshot } from './snapshot.js';
import { quoted } from './table-info.js';

export interface CopyProgress {
  table: string;
  /** Rows copied so far, all tables together, out of `total`. */
  copied: number;
  total: number;
}

export interface CopyOptions {
  /**
   * The index text of message rows, built as ingest builds it (the copy rebuilds the index), their
   * text read from `target`, which holds their sources by then.
   */
  searchFields(messages: Row[], target: Db): Promise<SearchFields[]>;
  onProgress?(progress: CopyProgress): void;
  /** Rows per batch at most (default 1,000). */
  batchRows?: number;
}

export interface TableCount {
  table: string;
  source: number;
  target: number;
}

export interface CopyResult {
  from: string;
  to: string;
  tables: TableCount[];
  rows: number;
  seconds: number;
}

const INDEX = 'messages_fts';
const INDEXED = 'messages';
/** Rows a start writes before any user exists (the secret check, the readiness probe). */
const REPLACEABLE = new Set(['settings']);

/**
 * Copies the Mailroom database `from` into `to` (each an SQLite file or a PostgreSQL URL): every
 * table the schema has, rows exactly as stored (ids, uids, flags, sealed secrets), the full-text
 * index rebuilt from the copied messages, the counters set past what was copied. The target is
 * migrated first and must hold no data; the copy is one transaction on it, so a failed copy
 * leaves it as it was (a new SQLite file is removed again). The source is only read, in one
 * snapshot. Ends by counting every table on both sides; a difference fails the copy.
 */
export async function copyDatabase(from: string, to: string, options: CopyOptions): Promise<CopyResult> {
  const started = performance.now();
  if (shownName(from) === shownName(to)) {
    throw new CopyRefused('config_error', `--from and --to name the same database (${shownName(from)})`);
  }
  const source = await openSource(from);
  try {
    const target = await openTarget(to);
    let tables: TableCount[];
    try {
      tables = await inSnapshot(source, () =>
        target.db.transaction(() => copyAll(source, target.db, options)),
      );
    } catch (error) {
      await target.discard();
      throw error;
    }
    // Committed: from here on nothing removes the target.
    // PostgreSQL plans with statistics its autovacuum gathers some time after a bulk load; until
    // then a list or a search read the whole inbox (140 ms instead of 0.1 ms at 100,000). A
    // failure here costs only that wait, not the copy.
    if (target.db.engine === 'postgres') await target.db.rawRun('ANALYZE').catch(() => {});
    await target.db.close();
    return {
      from: source.name,
      to: target.db.name,
      tables,
      rows: tables.reduce((n, t) => n + (t.table === INDEX ? 0 : t.target), 0),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await source.close();
  }
}

async function copyAll(source: Db, target: Db, options: CopyOptions): Promise<TableCount[]> {
  const [sourceCatalog, targetCatalog] = [await catalogOf(source), await catalogOf(target)];
  await sameMigrations(source, target);
  const plan = planCopy(sourceCatalog, targetCatalog, { source: source.name, target: target.name });
  await refuseData(target, plan);

  const counts = new Map<string, number>();
  for (const table of plan) counts.set(table.name, await countOf(source, table.name));
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  let copied = 0;
  for (const table of plan) {
    options.onProgress?.({ table: table.name, copied, total });
    await readInBatches(
      source,
      table,
      async (rows) => {
        await insertBatch(target, table, rows);
        if (table.name === INDEXED) await indexBatch(target, rows, options.searchFields);
        copied += rows.length;
        options.onProgress?.({ table: table.name, copied, total });
      },
      options.batchRows,
    );
  }

  for (const table of plan) {
    for (const { column, sourceKeeps } of table.counters) {
      const max = await target.rawFirst<{ n: number | null }>(
        `SELECT max(${quoted(column)}) AS n FROM ${quoted(table.name)}`,
      );
      const kept = sourceKeeps ? await sourceCatalog.counterOf(table.name, column) : undefined;
      await targetCatalog.setCounter(table.name, column, Math.max(max?.n ?? 0, kept ?? 0));
    }
  }
  return checkCounts(source, target, plan, counts);
}

/** Both sides at the same schema: the source is never migrated (it is only read). */
async function sameMigrations(source: Db, target: Db): Promise<void> {
  const names = async (db: Db) =>
    (await db.rawAll<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name).sort();
  const [have, want] = [await names(source), await names(target)];
  const missing = want.filter((name) => !have.includes(name));
  if (missing.length > 0) {
    throw new CopyRefused(
      'config_error',
      `the source ${source.name} has not had this release's migrations (it lacks ${missing.join(', ')}): ` +
        'start this release of Mailroom on it once (or run any mailroom admin command on it), then copy',
    );
  }
  const unknown = have.filter((name) => !want.includes(name));
  if (unknown.length > 0) {
    throw new CopyRefused(
      'config_error',
      `the source ${source.name} was upgraded by a newer Mailroom (it has ${unknown.at(-1)}): copy it with that release`,
    );
  }
}

/** Never merges: the target holds no mail, and no data but what any start writes (replaced). */
async function refuseData(target: Db, plan: TablePlan[]): Promise<void> {
  const users = await countOf(target, 'users');
  if (users > 0) {
    throw new CopyRefused(
      'conflict',
      `the target ${target.name} already holds mail (${users} user(s)): db copy only fills an empty database, ` +
        'it never merges; name a new database or file',
    );
  }
  for (const table of plan) {
    if (REPLACEABLE.has(table.name)) continue;
    const rows = await countOf(target, table.name);
    if (rows > 0) {
      throw new CopyRefused(
        'conflict',
        `the target ${target.name} is not empty (${table.name}: ${rows} row(s)): db copy only fills an empty database`,
      );
    }
  }
  for (const name of REPLACEABLE) await target.rawRun(`DELETE FROM ${quoted(name)}`);
}

async function insertBatch(target: Db, table: TablePlan, rows: Row[]): Promise<void> {
  try {
    await insertRows(
      target,
      table.name,
      table.columns,
      rows.map((row) => table.columns.map((c) => row[c])),
    );
  } catch (error) {
    const first = table.key.map((k) => `${k}=${String(rows[0]![k])}`).join(', ');
    throw new CopyRefused(
      'config_error',
      `the target refused rows of ${table.name} (from ${first}): ${oneLine(error)}; the target is left as it was`,
    );
  }
}

/** The full-text index of a batch of messages, as ingest fills it (never FTS internals). */
async function indexBatch(target: Db, messages: Row[], fields: CopyOptions['searchFields']): Promise<void> {
  if (messages.length === 0) return;
  const texts = await fields(messages, target);
  const rows = messages.map((m, i) => target.dialect.searchIndexRow(Number(m.id), texts[i]!));
  const columns = Object.keys(rows[0]!);
  await insertRows(
    target,
    INDEX,
    columns,
    rows.map((row) => Object.values(row)),
  );
}

async function countOf(db: Db, table: string): Promise<number> {
  return (await db.rawFirst<{ n: number }>(`SELECT count(*) AS n FROM ${quoted(table)}`))?.n ?? 0;
}

/** Counts every table on the target, inside the copy's transaction: any difference undoes it. */
async function checkCounts(
  source: Db,
  target: Db,
  plan: TablePlan[],
  sourceCounts: Map<string, number>,
): Promise<TableCount[]> {
  const counts: TableCount[] = [];
  for (const table of plan) {
    counts.push({
      table: table.name,
      source: sourceCounts.get(table.name)!,
      target: await countOf(target, table.name),
    });
  }
  // The index is rebuilt, so the target's must match its messages, whatever the source's holds.
  const messages = counts.find((c) => c.table === INDEXED)?.target ?? 0;
  counts.push({ table: INDEX, source: await countOf(source, INDEX), target: await countOf(target, INDEX) });
  const wrong = counts.filter((c) => (c.table === INDEX ? c.target !== messages : c.source !== c.target));
  if (wrong.length > 0) {
    const { table, source: s, target: t } = wrong[0]!;
    throw new Error(
      `after the copy ${table} has ${t} row(s) on the target and ${s} on the source: nothing was kept`,
    );
  }
  return counts;
}
