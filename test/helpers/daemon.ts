import { spawn } from 'node:child_process';
import fs from 'node:fs';

/** A server program the tests started, in its own process group. */
export interface Daemon {
  /** Kills it (its whole process group: rspamd's workers, say) and waits until it has exited. */
  kill(): Promise<void>;
}

export interface DaemonOptions {
  name: string;
  bin: string;
  args: string[];
  /** Says whether it answers yet (a ping over its protocol): probed until true. */
  ready: () => Promise<boolean>;
  /** Its log, whose end goes into the error when it never gets ready. */
  logFile: string;
  timeoutMs?: number;
}

/**
 * Starts a server program in the foreground as a child and resolves once `ready` says it
 * answers. One that exits first or stays silent past the deadline fails with its log's end.
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { name, logFile } = options;
  const child = spawn(options.bin, options.args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  const daemon: Daemon = {
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
  };
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      await daemon.kill();
      const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '(no log)';
      throw new Error(`${name} did not get ready; stderr:\n${stderr}\nits log ends:\n${log}`);
    }
    if (await options.ready().catch(() => false)) return daemon;
    await new Promise((r) => setTimeout(r, 100));
  }
}
