import { Command } from 'commander';
import { ConfigError } from '../config.js';
import { MailroomError } from '../mailbox/errors.js';
import { registerAdminCommands } from './admin-commands.js';
import { registerMcpProxy, UsageError } from './mcp-proxy.js';
import { registerServe } from './serve.js';

const program = new Command();
program
  .name('mailroom')
  .description('Mail server for software agents: SMTP in, SQLite store, HTTP JSON API')
  .version('0.1.0');
// Usage errors are one line, like every other error (contract 2); help stays one flag away.
program.configureOutput({
  outputError: (message, write) =>
    write(`mailroom: ${message.replace(/^error: /, '').trim()} (see --help)\n`),
});
registerServe(program);
registerAdminCommands(program);
registerMcpProxy(program);

function fail(error: unknown): never {
  if (error instanceof MailroomError || error instanceof ConfigError || error instanceof UsageError) {
    process.stderr.write(`mailroom: ${error.message}\n`);
    process.exit(1);
  }
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_BUSY' || code === 'EADDRINUSE' || code === 'EACCES') {
    process.stderr.write(`mailroom: ${(error as Error).message}\n`);
    process.exit(1);
  }
  process.stderr.write(`mailroom: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(2);
}

program.parseAsync(process.argv).catch(fail);
