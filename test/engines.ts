import fs from 'node:fs';
import path from 'node:path';

/**
 * Which test files run on which engine, worked out from what each file imports (vitest.config.ts
 * makes a project per engine from these lists), so a new file lands on the right engines without
 * anyone listing it:
 * - a file that starts its servers through test/helpers/server.ts (directly or through another
 *   helper) runs on both: that helper gives each server the project's engine; these are the
 *   files whose subject is the data (the SQL differs per engine: drafts, sending, metrics,
 *   storage failure, upgrades and copies, sign-in throttling), until their rules are tested
 *   in-process in test/mailbox/;
 * - but such a file whose first line is `// Engines: SQLite only: <why>` runs on SQLite only:
 *   its subject is a door (a protocol, the dashboard in Chromium, IMAP sync, a CLI or server
 *   process) that works the same on either engine, and test/e2e/postgres-doors.test.ts proves
 *   each door once on PostgreSQL;
 * - a file that opens PostgreSQL by itself (test/helpers/test-postgres.ts or postgres.ts, without
 *   server.ts), or whose name begins with `postgres-`, runs on PostgreSQL only: it picks its
 *   engines itself, and there it shares the run's one PostgreSQL server;
 * - every other file runs once, on SQLite (the default engine): most open no database at all, and
 *   running them twice would prove nothing.
 */
export interface EngineFiles {
  /** Relative to the project root, for vitest's include. */
  sqlite: string[];
  postgres: string[];
}

const SERVER_HELPER = 'test/helpers/server.ts';
/** The first line of a file that reaches SERVER_HELPER but runs on SQLite only. */
const SQLITE_ONLY = /^\/\/ Engines: SQLite only: \S/;
const POSTGRES_HELPERS = ['test/helpers/test-postgres.ts', 'test/helpers/postgres.ts'];

export function engineFiles(root: string, testFiles: string[]): EngineFiles {
  const reach = reachability(root);
  const sqlite: string[] = [];
  const postgres: string[] = [];
  for (const file of testFiles) {
    const reached = reach(file);
    const ownPostgres =
      path.basename(file).startsWith('postgres-') ||
      (!reached.has(SERVER_HELPER) && POSTGRES_HELPERS.some((helper) => reached.has(helper)));
    if (!ownPostgres) sqlite.push(file);
    if (ownPostgres || (reached.has(SERVER_HELPER) && !sqliteOnly(root, file))) postgres.push(file);
  }
  return { sqlite, postgres };
}

function sqliteOnly(root: string, file: string): boolean {
  return SQLITE_ONLY.test(fs.readFileSync(path.join(root, file), 'utf8'));
}

/** Every `*.test.ts` under test/, relative to root, but those in the `skipped` folders. */
export function listTestFiles(root: string, skipped: string[], dir = 'test'): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return skipped.includes(relative) ? [] : listTestFiles(root, skipped, relative);
    return entry.name.endsWith('.test.ts') ? [relative] : [];
  });
}

/** The test-side files a file reaches through relative imports (src/ is not followed). */
function reachability(root: string): (file: string) => Set<string> {
  const importsOf = new Map<string, string[]>();
  const direct = (file: string): string[] => {
    let found = importsOf.get(file);
    if (found) return found;
    const source = fs.readFileSync(path.join(root, file), 'utf8');
    found = [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)]
      .map((match) => path.posix.join(path.posix.dirname(file), match[1]!).replace(/\.js$/, '.ts'))
      .filter((target) => target.startsWith('test/') && fs.existsSync(path.join(root, target)));
    importsOf.set(file, found);
    return found;
  };
  return (file) => {
    const seen = new Set<string>();
    const stack = [file];
    while (stack.length > 0) {
      for (const next of direct(stack.pop()!)) {
        if (seen.has(next)) continue;
        seen.add(next);
        stack.push(next);
      }
    }
    return seen;
  };
}
