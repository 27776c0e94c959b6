import path from 'node:path';
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

/**
 * Seconds each of the longest files took in a clean-clone CI run (2 cores, 3 workers): vitest
 * orders a run without its cache (every CI run) by file size, so a long file with little code
 * (parse-linear: 24 s) started last and ran on while the other workers sat idle. A stale figure
 * only moves a file in the queue.
 */
const SECONDS: Record<string, number> = {
  'test/e2e/imap-sync-memory.test.ts': 78,
  'test/e2e/postgres-nodes-ingest.test.ts': 76,
  'test/docs/package-consumer.test.ts': 64,
  'test/e2e/db-copy.test.ts': 50,
  'test/e2e/postgres-nodes-imap.test.ts': 40,
  'test/e2e/cli-errors.test.ts': 38,
  'test/browser/dashboard-sign-in.test.ts': 37,
  'test/e2e/openapi-fuzz.test.ts': 36,
  'test/e2e/cli.test.ts': 29,
  'test/browser/dashboard-oauth.test.ts': 28,
  'test/browser/dashboard-manage.test.ts': 27,
  'test/e2e/serve-process.test.ts': 26,
  'test/e2e/postgres-banner.test.ts': 26,
  'test/mail/parse-linear.test.ts': 24,
  'test/e2e/postgres-nodes-outbound.test.ts': 24,
  'test/e2e/storage-failure.test.ts': 21,
  'test/browser/dashboard-mail.test.ts': 19,
  'test/e2e/lean-upgrade.test.ts': 19,
  'test/e2e/postgres-doors.test.ts': 18,
  'test/e2e/migrations.test.ts': 17,
  'test/e2e/backup.test.ts': 15,
  'test/e2e/hostile-parse.test.ts': 14,
};

/**
 * vitest's order (each project's files together, the projects one after the other), with the
 * files known to be long first within their project, longest first, so the run ends on short ones.
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification) => SECONDS[path.relative(root, spec.moduleId)] ?? 0;
    const projects = [...new Set(ordered.map((spec) => spec.project.name))];
    return projects.flatMap((name) =>
      ordered
        .filter((spec) => spec.project.name === name)
        .map((spec, at) => ({ spec, at }))
        .sort((a, b) => seconds(b.spec) - seconds(a.spec) || a.at - b.at)
        .map(({ spec }) => spec),
    );
  }
}
