import { spawn } from 'node:child_process';
import { testDkimKey } from './test-dkim-key.js';
import type { ChildProcess, ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { compiled } from './compiled.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  httpPort: number;
  smtpPort: number;
  baseUrl: string;
  stdout(): string;
  stderr(): string;
  /** Sends the signal and resolves with the exit code and the milliseconds from signal to exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

/** The threads `mailroom serve` runs with by default, for a test whose subject is the real process. */
export const SERVE_THREADS = { MAILROOM_INGEST_THREAD: 'true', MAILROOM_PARSE_THREADS: '2' };

/**
 * `mailroom serve` as its own process, compiled from the current sources like the CLI tests, with only
 * PATH and `env` in its environment and `flags` on its command line. Resolves once its `mailroom
 * started` log line and its banner are out. Without the ingest and parse threads, like the
 * in-process test servers, unless `env` asks for them (a thread loads the server's modules again:
 * a start and stop took ~3.7 CPU-s with them, ~2.7 without); a test about them says so.
 */
export async function spawnServe(env: Record<string, string>, flags: string[] = []): Promise<ServeProcess> {
  const child = await startServe(env, flags);
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const ready = () => {
      // The banner comes after the signal handlers are in place (on stderr, or stdout before it moved).
      if (!/Mailroom is running[\s\S]*\n$/.test(err) && !out.includes('Mailroom is running')) return;
      const started = out
        .split('\n')
        .map(
          (line) =>
            /"msg":"mailroom started"/.test(line) && (JSON.parse(line) as { http: number; smtp: number }),
        )
        .find(Boolean);
      if (!started) return;
      resolve({
        child,
        httpPort: started.http,
        smtpPort: started.smtp,
        baseUrl: `http://127.0.0.1:${started.http}`,
        stdout: () => out,
        stderr: () => err,
        async stop(signal = 'SIGTERM') {
          const sent = Date.now();
          child.kill(signal);
          const code = await exited;
          return { code, ms: Date.now() - sent };
        },
      });
    };
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      ready();
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      ready();
    });
    void exited.then((code) =>
      reject(new Error(`mailroom serve exited (${code}) before it started:\n${err}`)),
    );
  });
}

/** The `mailroom serve` process spawnServe starts, as soon as it is started (a test that stops it early). */
export async function startServe(
  env: Record<string, string>,
  flags: string[] = [],
): Promise<ChildProcessByStdio<null, Readable, Readable>> {
  return spawn(process.execPath, [await compiled('src/cli/main.ts'), 'serve', ...flags], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      MAILROOM_HTTP_PORT: '0',
      MAILROOM_SMTP_PORT: '0',
      MAILROOM_VERIFY_AUTH: 'false',
      MAILROOM_DB_SYNC: 'normal',
      MAILROOM_DKIM_KEY: await testDkimKey(),
      MAILROOM_INGEST_THREAD: 'false',
      MAILROOM_PARSE_THREADS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
