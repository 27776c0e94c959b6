/** Runs of one text before it is named: one-off statements (DDL, a rare look-up) never are. */
const RUNS_BEFORE_NAMED = 5;
/** At most this many texts named (or unnamed for good): each is a plan kept by every connection that runs it. */
const MAX_NAMED = 200;
/** Texts counted toward a name at once; past it the counts start over (they only delay a name). */
const MAX_COUNTED = 500;
/** Longer texts (long IN lists, many rows at once) rarely repeat: never counted nor named. */
const MAX_TEXT = 16_000;

/**
 * Text search (`@@`) and LIKE patterns: their best plan depends on the words or the pattern (a
 * common word reads the uid index backwards, a rare one the GIN index), which a plan kept for
 * every value would not follow.
 */
const VALUE_SENSITIVE = /@@|\bi?like\b/i;

/**
 * Names for the statements run often, so that pg prepares each once per connection and
 * PostgreSQL keeps its plan (PostgreSQL's named statements, as pgJDBC's `prepareThreshold` and
 * Npgsql's automatic preparation do). A list page on PostgreSQL is three statements; parsing and
 * planning them was most of the backend's CPU a page (docs/decisions/list-performance.md).
 * PostgreSQL plans a named statement for its values for its first five runs and keeps a generic
 * plan only when that costs no more; `plan_cache_mode` (in the database URL's `options`) overrides.
 */
export class StatementNames {
  /** A text's name; null for one whose statement went missing on the server (unnamed from then on). */
  private readonly named = new Map<string, string | null>();
  private readonly runs = new Map<string, number>();
  private made = 0;

  /** The name to run `sql` under, or undefined to run it unnamed (parsed and planned each time). */
  nameFor(sql: string): string | undefined {
    const name = this.named.get(sql);
    if (name !== undefined) return name ?? undefined;
    if (this.named.size >= MAX_NAMED || sql.length > MAX_TEXT) return undefined;
    const runs = (this.runs.get(sql) ?? 0) + 1;
    if (runs < RUNS_BEFORE_NAMED) {
      if (this.runs.size >= MAX_COUNTED) this.runs.clear();
      this.runs.set(sql, runs);
      return undefined;
    }
    this.runs.delete(sql);
    if (VALUE_SENSITIVE.test(sql)) return undefined;
    return this.rename(sql);
  }

  /**
   * A new name for `sql`: its first, or a fresh one when its kept plan can no longer run (another
   * node's migration changed the shape of its rows: "cached plan must not change result type").
   */
  rename(sql: string): string {
    const name = `mailroom_${++this.made}`;
    this.named.set(sql, name);
    return name;
  }

  /**
   * `sql` runs unnamed from now on: the server no longer had its statement, which a pooler that
   * hands each statement to any server connection does (PgBouncer before 1.21, or without
   * `max_prepared_statements`).
   */
  unname(sql: string): void {
    this.named.set(sql, null);
  }
}

/** What a named statement's failure asks for: a new name, running it unnamed, or nothing. */
export function namedStatementProblem(error: unknown): 'stale-plan' | 'missing' | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '0A000' && typeof message === 'string' && message.includes('cached plan')) return 'stale-plan';
  return code === '26000' ? 'missing' : undefined;
}
