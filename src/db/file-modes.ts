import fs from 'node:fs';
import path from 'node:path';

/** MAILROOM_SECRET's home when it is not set: beside the database, which is unreadable without it. */
export const SECRET_FILE = 'secret.key';

/** What SQLite keeps beside the database; it creates them with the database file's mode. */
const SIDE_SUFFIXES = ['-wal', '-shm', '-journal'];

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(3, '0');

/** Creates the data directory (and any missing parent) readable by this user alone. */
export function createDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Makes the data directory and every file Mailroom keeps there private to this user before
 * SQLite opens the database: the database file is created 0600 (its -wal and -shm then get the
 * same mode from SQLite), and looser modes left by an older version are tightened. Returns what
 * it left as it was, for a warning.
 */
export function makeDataPrivate(dbFile: string): string[] {
  const dir = path.dirname(dbFile);
  createDataDir(dir);
  if (process.platform === 'win32') return [];
  fs.closeSync(fs.openSync(dbFile, 'a', 0o600));
  const ours = [dbFile, ...SIDE_SUFFIXES.map((suffix) => dbFile + suffix), path.join(dir, SECRET_FILE)];
  const warnings = ours.flatMap((file) => tighten(file, 0o600));
  return [
    ...warnings,
    ...tightenDir(
      dir,
      ours.map((file) => path.basename(file)),
    ),
  ];
}

/**
 * A directory holding only Mailroom's files is Mailroom's and is tightened to 0700. One that
 * holds other files too (a home directory, a shared volume) is not ours to change: its mode is
 * left and a warning names it; the files in it are 0600 all the same.
 */
function tightenDir(dir: string, ownNames: string[]): string[] {
  const { mode } = fs.statSync(dir);
  if ((mode & 0o077) === 0) return [];
  const others = fs.readdirSync(dir).filter((name) => !ownNames.includes(name));
  if (others.length > 0) {
    return [
      `data directory ${dir} is open to other users (mode ${octal(mode)}) and holds files that are not Mailroom's; ` +
        `its mode is left as it is (Mailroom's own files in it are 0600): run chmod 700 on it, or use a directory of its own`,
    ];
  }
  return tighten(dir, 0o700);
}

function tighten(file: string, wanted: number): string[] {
  let mode: number;
  try {
    mode = fs.statSync(file).mode;
  } catch {
    return [];
  }
  if ((mode & 0o077) === 0) return [];
  try {
    fs.chmodSync(file, wanted);
    return [];
  } catch (error) {
    return [
      `${file} is open to other users (mode ${octal(mode)}) and could not be made ${octal(wanted)}: ${(error as Error).message}`,
    ];
  }
}
