import { CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { mailroomErrorOf } from '../mailbox/errors.js';
import { cliIo } from './io.js';

/** The `mailroom` command's exit codes (README, "Exit codes"). */
export const EXIT = {
  ok: 0,
  /** The command could not do what was asked: a bad value, nothing by that name, a conflict, a setup problem. */
  failed: 1,
  /** The command line itself: an unknown command or option, a missing argument. */
  usage: 2,
  /** The database is busy or cannot be written now: the same command may work later. */
  unavailable: 3,
  /** A bug in Mailroom: the message comes with a stack trace. */
  internal: 4,
} as const;

/** An error of the command itself (no database here, a password not given...). */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Whether the command line asks for JSON; errors are then JSON too. */
export const wantsJson = () => cliIo().argv.includes('--json');

/** One error as `mailroom: message` on stderr, or `{"error":{"code","message"}}` on stdout under --json. */
export function report(code: string, message: string): void {
  const io = cliIo();
  if (wantsJson()) io.stdout.write(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`);
  else io.stderr.write(`mailroom: ${message}\n`);
}

/** Reports what ended a command and answers its exit code. */
export function fail(error: unknown): number {
  // Commander has written its message already (configureOutput in run.ts).
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  const { code, message, exit } = classify(error);
  report(code, message);
  return exit;
}

function classify(error: unknown): { code: string; message: string; exit: number } {
  if (error instanceof CliError) return { code: error.code, message: error.message, exit: EXIT.failed };
  if (error instanceof ConfigError)
    return { code: 'config_error', message: error.message, exit: EXIT.failed };
  // A MailroomError, or a storage outage (busy, full, read-only) as `unavailable`.
  const known = mailroomErrorOf(error);
  if (known) {
    const exit = known.code === 'unavailable' ? EXIT.unavailable : EXIT.failed;
    const detail = known === error ? '' : ` (${(error as Error).message})`;
    return { code: known.code, message: `${known.message}${detail}`, exit };
  }
  const stack = (error as Error)?.stack ?? String(error);
  return { code: 'internal_error', message: `unexpected error: ${stack}`, exit: EXIT.internal };
}
