import type { Command } from 'commander';
import { CliError } from './errors.js';
import { print, table } from './output.js';
import { ProgressBar } from './progress-bar.js';

export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('the database itself');
  db.command('copy')
    .description(
      'copy a whole installation into an empty database: SQLite file or postgres:// URL, either way ' +
        '(stop the server first; the copy keeps ids, uids and sealed secrets: use the same MAILROOM_SECRET on it)',
    )
    .requiredOption('--from <db>', 'the database to copy: an SQLite file (mailroom.db) or a postgres:// URL')
    .requiredOption('--to <db>', 'the empty database to fill: a postgres:// URL or a new SQLite file')
    .option('--json', 'machine-readable output')
    .action(async (o: { from: string; to: string; json?: boolean }) => {
      const [{ copyInstallation }, { CopyRefused }] = await Promise.all([
        import('../mailbox/operations/maintenance.js'),
        import('../db/copy/refused.js'),
      ]);
      const bar = new ProgressBar();
      let result;
      try {
        result = await copyInstallation(o.from, o.to, (p) => bar.update(p.table, p.copied, p.total));
      } catch (error) {
        if (error instanceof CopyRefused) throw new CliError(error.code, error.message);
        throw error;
      } finally {
        bar.done();
      }
      const { from, to, tables, rows, seconds } = result;
      print(!!o.json, { copy: { from, to, rows, seconds: Number(seconds.toFixed(3)), tables } }, () =>
        [
          table(tables, ['table', 'source', 'target']),
          `copied ${rows} row(s) from ${from} to ${to} in ${seconds.toFixed(1)} s; every count checked`,
          'Secrets stay sealed as they were: start Mailroom on the copy with the same MAILROOM_SECRET ' +
            '(or the same secret.key in its data directory).',
        ].join('\n'),
      );
    });
}
