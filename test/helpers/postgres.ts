import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { runPostgresMigrations } from '../../src/db/postgres/migrate.js';
import { freePort, systemUser } from './host.js';

/** Databases on a running server, reached through its superuser. */
export interface PostgresDatabases {
  /** The superuser's connection URL, to the `postgres` database. */
  adminUrl: string;
  /**
   * A new database on this server; its URL. Empty, or with `migrated` a copy of one that holds
   * every migration (CREATE DATABASE ... TEMPLATE, a few milliseconds), so a server started on it
   * skips migrating. A test of migrations or of a first start asks for an empty one.
   */
  createDatabase(options?: { migrated?: boolean }): Promise<string>;
  /** Drops a database createDatabase made (its connections are ended first). */
  dropDatabase(url: string): Promise<void>;
}

export interface Postgres extends PostgresDatabases {
  port: number;
  dir: string;
  /**
   * The server crashes: SIGKILL to the postmaster and every process it started, so connections
   * drop at once. The data stays; start() brings the server back on the same port.
   */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and deletes its folder. */
  stop(): Promise<void>;
}

let databases = 0;

/**
 * The databases of the server at `adminUrl`; `template` names its migrated template database
 * (the run's shared server has one made by test/helpers/postgres-global.ts), else the first
 * migrated database asked for in this process makes one.
 */
export function databasesOn(adminUrl: string, template?: string): PostgresDatabases {
  const admin = (statement: string) => withClient(adminUrl, (client) => client.query(statement));
  let migrated: Promise<string> | undefined = template ? Promise.resolve(template) : undefined;
  return {
    adminUrl,
    async createDatabase(options = {}) {
      const name = `mailroom_${process.pid}_${++databases}_${Math.random().toString(36).slice(2, 8)}`;
      if (!options.migrated) {
        await admin(`CREATE DATABASE "${name}"`);
        return databaseUrl(adminUrl, name);
      }
      migrated ??= makeTemplate(adminUrl, `mailroom_template_${process.pid}`);
      await admin(`CREATE DATABASE "${name}" TEMPLATE "${await migrated}"`);
      return databaseUrl(adminUrl, name);
    },
    async dropDatabase(url) {
      const name = new URL(url).pathname.slice(1).replaceAll('"', '""');
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/**
 * A database named `name` holding every migration, to copy; its name. Nothing stays connected to
 * it: PostgreSQL refuses to copy a database another session is using.
 */
export async function makeTemplate(adminUrl: string, name: string): Promise<string> {
  await withClient(adminUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  await withClient(databaseUrl(adminUrl, name), (client) => runPostgresMigrations(client));
  return name;
}

/** The URL of database `name` on the server `adminUrl` reaches. */
function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `fn` on a connection of its own to `url`, ended afterwards. */
async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The newest server binaries of Debian's postgresql package, or PG_BIN. */
export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return path.join(root, versions[0] ?? '<version>', 'bin');
}

/** How long the server may take to accept connections after a start (crash recovery included). */
const READY_TIMEOUT_MS = 60_000;

/**
 * A real PostgreSQL for the tests, from the Debian package's binaries: its own cluster in a temp
 * folder, listening on a free port on 127.0.0.1 with trust authentication (tests only), its unix
 * socket inside the folder, durability traded for speed (fsync off) unless `durable`. Run as root, the cluster
 * belongs to the `postgres` user (PostgreSQL refuses to run as root).
 *
 * The postmaster runs under a small shell that holds a pipe from this process: when this process
 * ends, however it ends, the pipe closes and the shell stops the server and deletes the folder,
 * so a killed test run leaves no server behind.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<Postgres> {
  const bin = postgresBin();
  if (!fs.existsSync(path.join(bin, 'initdb'))) {
    throw new Error(
      `${path.join(bin, 'initdb')} not found: install Debian package postgresql (scripts/ensure-test-deps.sh), or set PG_BIN`,
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-postgres-'));
  const data = path.join(dir, 'data');
  const socketDir = path.join(dir, 'run');
  fs.mkdirSync(socketDir);
  const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  if (asPostgres.length > 0) {
    const { uid, gid } = systemUser('postgres', 'postgresql');
    fs.chownSync(dir, uid, gid);
    fs.chownSync(socketDir, uid, gid);
  }
  const port = await freePort();
  await run(
    [
      ...asPostgres,
      path.join(bin, 'initdb'),
      ...['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8'],
      '--no-sync',
      '--no-instructions',
    ],
    dir,
  );
  fs.appendFileSync(
    path.join(data, 'postgresql.conf'),
    [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${socketDir}'`,
      // The bench measures PostgreSQL as a team would run it: every commit on disk.
      ...(options.durable
        ? ['shared_buffers = 256MB']
        : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off', 'shared_buffers = 64MB']),
      'max_connections = 300',
      "log_min_messages = 'warning'",
      '',
    ].join('\n'),
  );

  let watchdog: ChildProcess | null = null;
  let crashedPid: number | null = null;

  const server: Postgres = {
    ...databasesOn(`postgres://postgres@127.0.0.1:${port}/postgres`),
    port,
    dir,
    async start() {
      const logFile = path.join(dir, 'postgres.log');
      // The shell waits for its stdin to close (stop(), or this process gone), then shuts the
      // server down at once (SIGQUIT) and removes the folder.
      const script =
        `"$0" -D "$1" >>"$2" 2>&1 & pm=$!; cat >/dev/null; ` +
        `kill -QUIT $pm 2>/dev/null; wait $pm; rm -rf "$3"`;
      const shell = [...asPostgres, 'sh', '-c', script, path.join(bin, 'postgres'), data, logFile, dir];
      const child = spawn(shell[0]!, shell.slice(1), { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
      watchdog = child;
      const exited = new Promise<never>((_, reject) =>
        child.once('exit', () => reject(new Error(`postgres exited at start:\n${tail(logFile)}`))),
      );
      exited.catch(() => {});
      await Promise.race([waitUntilReady(data, crashedPid), exited]);
      // A server shared by a test file stays up until the file's process ends, without keeping it alive.
      child.unref();
      (child.stdin as unknown as Socket).unref();
    },
    async kill() {
      const pid = postmasterPid(data);
      const shell = watchdog;
      watchdog = null;
      if (pid === null) return;
      // Stopped first, so it forks no new backend while its children are listed.
      process.kill(pid, 'SIGSTOP');
      const processes = [pid, ...childrenOf(pid)];
      for (const p of processes) killQuietly(p, 'SIGKILL');
      // The shell must not tidy up: the data stays for start().
      if (shell?.pid) killQuietly(-shell.pid, 'SIGKILL');
      crashedPid = pid;
      // A backend still alive would keep the old shared memory in use and stop the next start.
      await waitFor(() => processes.every((p) => !isAlive(p)), 10_000, 'postgres processes to exit');
      // Where nobody reaps orphans (a container's init), the postmaster stays a zombie whose pid
      // still answers kill(pid, 0), and the next postmaster would refuse its lock files.
      fs.rmSync(path.join(data, 'postmaster.pid'), { force: true });
      fs.rmSync(path.join(socketDir, `.s.PGSQL.${port}.lock`), { force: true });
    },
    async stop() {
      const shell = watchdog;
      watchdog = null;
      if (shell && shell.exitCode === null) {
        const exited = new Promise<void>((resolve) => shell.once('exit', () => resolve()));
        shell.ref(); // start() let go of it; this wait must keep the process alive
        shell.stdin?.end();
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

function run(command: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command.join(' ')} failed (${code}):\n${output}`)),
    );
  });
}

/** postmaster.pid: line 1 the pid, line 8 the status ("ready" once it accepts connections). */
function readPidFile(data: string): { pid: number; status: string } | null {
  try {
    const lines = fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n');
    return { pid: Number(lines[0]), status: (lines[7] ?? '').trim() };
  } catch {
    return null;
  }
}

function postmasterPid(data: string): number | null {
  const file = readPidFile(data);
  return file && isAlive(file.pid) ? file.pid : null;
}

async function waitUntilReady(data: string, crashedPid: number | null): Promise<void> {
  await waitFor(
    () => {
      const file = readPidFile(data);
      return file !== null && file.pid !== crashedPid && file.status === 'ready';
    },
    READY_TIMEOUT_MS,
    'postgres to accept connections',
  );
}

async function waitFor(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Alive and not a zombie (a zombie holds nothing; in a container nobody may reap it). */
function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function childrenOf(parent: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '(no log)';
  }
}
