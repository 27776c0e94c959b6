import path from 'node:path';
import { ConfigError } from '../config.js';

/** File-system errors that say the data directory cannot be used as it is: a setup problem, not a bug. */
const FS_CODES = new Set([
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'ENOENT',
  'ENOSPC',
  'EDQUOT',
  'EISDIR',
  'ELOOP',
]);
/** The same from SQLite, opening or first writing the database file. */
const SQLITE_CODES = /^SQLITE_(CANTOPEN|READONLY|IOERR|NOTADB|CORRUPT|FULL|PERM|AUTH)(_|$)/;

/**
 * One line naming the data directory and what is wrong with it, for an error met while creating
 * or opening it; undefined for any other error. SQLite's own messages ("unable to open database
 * file") name no path, and an fs error's stack says nothing a user can act on.
 */
export function dataDirProblem(error: unknown, dbFile: string): ConfigError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const dir = path.dirname(dbFile);
  const where = `cannot use the data directory ${dir} (MAILROOM_DATA_DIR or --data-dir)`;
  if (FS_CODES.has(code)) {
    return new ConfigError(`${where}: ${(error as Error).message}; ${hint(code)}`);
  }
  if (SQLITE_CODES.test(code)) {
    const reason = /NOTADB|CORRUPT/.test(code)
      ? `${dbFile} is not a readable SQLite database (${(error as Error).message})`
      : `${dbFile}: ${(error as Error).message} (${code})`;
    return new ConfigError(`${where}: ${reason}; ${hint(code)}`);
  }
  return undefined;
}

function hint(code: string): string {
  if (/ENOSPC|EDQUOT|FULL/.test(code)) return 'free some space on its disk';
  if (/NOTADB|CORRUPT/.test(code)) return 'restore it from a backup (mailroom restore)';
  if (/ENOTDIR|EISDIR|ELOOP/.test(code)) return 'point it at a directory';
  return 'Mailroom needs to create and write files there: check its owner, its mode and that its disk is not mounted read-only';
}
