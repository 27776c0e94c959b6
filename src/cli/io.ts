import { AsyncLocalStorage } from 'node:async_hooks';

/** Where one run of the `mailroom` command reads and writes: the process's own, or a test's. */
export interface CliIo {
  /** The arguments after the command's name (`domain list --json`). */
  argv: readonly string[];
  /** Where MAILROOM_* settings are read. */
  env: NodeJS.ProcessEnv;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Passwords with --password-stdin; a terminal (isTTY) is asked instead. */
  stdin: AsyncIterable<unknown> & { isTTY?: boolean };
}

export function processIo(argv: readonly string[] = process.argv.slice(2)): CliIo {
  return { argv, env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
}

// The commands are registered with commander and reach their output from deep inside (print,
// report, a warning while opening the database); the run they belong to travels with them here
// rather than as a parameter of each, so several runs in one process (tests) stay apart.
const current = new AsyncLocalStorage<CliIo>();

/** Runs `fn` with `io` as the command's input and output. */
export function withIo<T>(io: CliIo, fn: () => Promise<T>): Promise<T> {
  return current.run(io, fn);
}

/** The running command's input and output; the process's outside a run. */
export function cliIo(): CliIo {
  return current.getStore() ?? processIo();
}
