import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { loadConfig } from '../config.js';
import type { Db } from '../db/connection.js';
import { withoutPassword } from '../db/postgres/url.js';
import type { MailboxDeps } from '../mailbox/deps.js';
import type { RemoteBackends } from '../mailbox/remote.js';
import type * as adminOperations from '../mailbox/operations/admin.js';
import { CliError } from './errors.js';
import { cliIo } from './io.js';
import type { AuditAction } from '../contract/audit.js';
import type { AuditContext } from '../mailbox/audit/audit-context.js';
import { finishAudit, openAudit, outcomeOfError } from '../mailbox/audit/audit-context.js';

/** The options every admin command takes. */
export interface DataDirOptions {
  json?: boolean;
  dataDir?: string;
  /** A PostgreSQL database instead of the data directory's SQLite file. */
  databaseUrl?: string;
  /** Create the database when the data directory has none (otherwise that is an error). */
  init?: boolean;
}

export function cliConfig(o: DataDirOptions): Config {
  // `--database-url "$MAILROOM_DATABASE_URL"` (the start banner's commands) in a shell without it.
  if (o.databaseUrl === '')
    throw new CliError(
      'config_error',
      '--database-url is empty: is MAILROOM_DATABASE_URL set in this shell?',
    );
  return loadConfig(
    {
      ...(o.dataDir ? { dataDir: o.dataDir } : {}),
      ...(o.databaseUrl ? { databaseUrl: o.databaseUrl } : {}),
    },
    cliIo().env,
  );
}

/**
 * Refuses a data directory without a database, or a PostgreSQL database without Mailroom's
 * tables: a mistyped --data-dir or --database-url must not quietly create an empty installation
 * (and a secret.key) somewhere and answer from it.
 */
export async function requireDatabase(config: Config): Promise<void> {
  if (config.databaseUrl) {
    const { holdsMailroom } = await import('../db/postgres/open.js');
    if ((await holdsMailroom(config.databaseUrl)) !== false) return;
    throw new CliError(
      'no_database',
      `no Mailroom database at ${withoutPassword(config.databaseUrl)} (it has no Mailroom tables): ` +
        'check --database-url or MAILROOM_DATABASE_URL, or add --init to create one there ' +
        '(mailroom serve creates one on its first start)',
    );
  }
  const exists = fs.existsSync(config.dbFile) && fs.statSync(config.dbFile).size > 0;
  if (exists) return;
  throw new CliError(
    'no_database',
    `no Mailroom database in ${path.dirname(config.dbFile)} (no ${path.basename(config.dbFile)} there): ` +
      'check --data-dir or MAILROOM_DATA_DIR, or add --init to create a new one there ' +
      '(mailroom serve creates one on its first start)',
  );
}

/**
 * Admin commands open the same database and secret as the server (WAL allows both at once).
 * What they run on is loaded here, when a command runs: the CLI starts with commander alone
 * (every command loading the whole server cost a second of CPU, `--help` included).
 */
async function openDeps(
  o: DataDirOptions,
  remote?: (deps: MailboxDeps) => RemoteBackends,
): Promise<{ deps: MailboxDeps; db: Db }> {
  const config = cliConfig(o);
  if (!o.init) await requireDatabase(config);
  const warn = (message: string) => cliIo().stderr.write(`mailroom: warning: ${message}\n`);
  const { openForCommand } = await import('../mailbox/open-data-dir.js');
  return openForCommand(config, warn, remote);
}

/** The admin verbs, handed to a command with its deps. */
export type AdminOperations = typeof adminOperations;

/** Runs `fn` on the data directory; the database stays open until what it returns settles. */
export async function withDeps<T>(
  o: DataDirOptions,
  fn: (deps: MailboxDeps, admin: AdminOperations, db: Db) => Promise<T>,
  /** The IMAP side, where a command needs it (connecting a mailbox verifies its servers). */
  remote?: (deps: MailboxDeps) => RemoteBackends,
): Promise<T> {
  const [{ deps, db }, admin] = await Promise.all([
    openDeps(o, remote),
    import('../mailbox/operations/admin.js'),
  ]);
  try {
    return await fn(deps, admin, db);
  } finally {
    await db.close();
  }
}

/**
 * A state-changing command's work, recorded in the audit trail (door `cli`, actor `admin`):
 * `ok`, or the code of what refused it. The verb may write the record in its own transaction.
 */
export function audited<T>(
  action: AuditAction,
  fn: (deps: MailboxDeps, admin: AdminOperations, audit: AuditContext) => Promise<T>,
): (deps: MailboxDeps, admin: AdminOperations) => Promise<T> {
  return async (deps, admin) => {
    const audit = openAudit({
      door: 'cli',
      action,
      actor: { kind: 'admin', id: null },
      userId: null,
      requestId: null,
    });
    try {
      const result = await fn(deps, admin, audit);
      await finishAudit(deps, audit, 'ok');
      return result;
    } catch (error) {
      await finishAudit(deps, audit, error instanceof CliError ? error.code : outcomeOfError(error));
      throw error;
    }
  };
}
