import { Command } from 'commander';
import { registerAdminCommands } from './admin-commands.js';
import { registerAuditCommands } from './audit-commands.js';
import { registerBackupCommands } from './backup-commands.js';
import { registerDbCommands } from './db-commands.js';
import { fail, report } from './errors.js';
import { registerMcpProxy } from './mcp-proxy.js';
import { registerServe } from './serve.js';
import { VERSION } from '../version.js';

const program = new Command();
program
  .name('mailroom')
  .description('Mail server for software agents: SMTP in, SQLite store, HTTP JSON API')
  .version(VERSION)
  // Errors end in fail(), which picks the exit code (README, "Exit codes").
  .exitOverride();
// Usage errors are one line, like every other error (contract 2); help stays one flag away. An
// unknown option's value is left out: it may be a secret typed with the wrong option name.
program.configureOutput({
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

program.parseAsync(process.argv).catch(fail);
