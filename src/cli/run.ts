import { Command } from 'commander';
import { registerAdminCommands } from './admin-commands.js';
import { registerAuditCommands } from './audit-commands.js';
import { registerBackupCommands } from './backup-commands.js';
import { registerDbCommands } from './db-commands.js';
import { fail, report } from './errors.js';
import type { CliIo } from './io.js';
import { withIo } from './io.js';
import { registerMcpProxy } from './mcp-proxy.js';
import { registerServe } from './serve.js';
import { VERSION } from '../version.js';

/**
 * One run of the `mailroom` command on `io.argv`: answers its exit code (README, "Exit codes")
 * instead of ending the process, so its rules and wording are tested in-process. `serve` answers
 * once the server is up; it keeps running in the process.
 */
export function run(io: CliIo): Promise<number> {
  return withIo(io, () => program(io).parseAsync([...io.argv], { from: 'user' })).then(
    () => 0,
    (error: unknown) => withIo(io, async () => fail(error)),
  );
}

function program(io: CliIo): Command {
  const program = new Command();
  program
    .name('mailroom')
    .description('Mail server for software agents: SMTP in, SQLite store, HTTP JSON API')
    .version(VERSION)
    // Errors end in fail(), which picks the exit code.
    .exitOverride();
  // Usage errors are one line, like every other error (contract 2); help stays one flag away. An
  // unknown option's value is left out: it may be a secret typed with the wrong option name.
  program.configureOutput({
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
    outputError: (message) =>
      report(
        'usage',
        `${message
          .replace(/^error: /, '')
          .replace(/(option '[^'=\s]+)=[^']*'/, "$1=…'")
          .trim()} (see --help)`,
      ),
  });
  registerServe(program);
  registerAdminCommands(program);
  registerAuditCommands(program);
  registerBackupCommands(program);
  registerDbCommands(program);
  registerMcpProxy(program);
  return program;
}
