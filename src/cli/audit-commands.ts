import type { Command } from 'commander';
import type { DataDirOptions } from './admin-context.js';
import { common } from './admin-commands.js';
import { withDeps } from './admin-context.js';
import { CliError } from './errors.js';
import { print } from './output.js';

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('the audit trail of every state-changing request');
  common(
    audit
      .command('verify')
      .description(
        'check the hash chain from the oldest kept record: exits 0 when whole, 1 naming the first record that does not match',
      ),
  ).action((o: DataDirOptions) =>
    withDeps(o, async (deps) => {
      const { verifyAudit } = await import('../mailbox/audit/trail.js');
      const verdict = await verifyAudit(deps);
      if (!verdict.whole)
        throw new CliError(
          'audit_broken',
          `audit record ${verdict.firstBad} does not match the chain (record ${verdict.records} from the oldest kept): ` +
            'it, or the one before it, was changed after it was written',
        );
      print(!!o.json, { audit: { whole: true, records: verdict.records } }, () =>
        verdict.records === 0
          ? 'the audit trail is empty'
          : `the audit trail is whole: ${verdict.records} record(s) from the oldest kept`,
      );
    }),
  );
}
