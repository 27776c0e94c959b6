import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import { engineFiles, listTestFiles } from './test/engines.js';
import SlowFirstSequencer from './test/helpers/slow-first-sequencer.js';

const root = fileURLToPath(new URL('.', import.meta.url));
// Folders of test files that are not part of the run: the benchmarks run on their own, and
// test/consumer/ is another project's suite (test/docs/package-consumer.test.ts runs it there).
const notTests = ['test/bench', 'test/consumer'];
const files = engineFiles(root, listTestFiles(root, notTests));

/** One project per engine, run together so the scheduler interleaves them (test/engines.ts says which file runs where). */
function engine(name: 'sqlite' | 'postgres', include: string[]): TestProjectInlineConfiguration {
  return {
    // The parse and ingest threads start from the compiled sources (test/helpers/compiled-threads.ts).
    resolve: {
      alias: [{ find: /^\.\/thread-start\.js$/, replacement: `${root}test/helpers/compiled-threads.ts` }],
    },
    test: {
      name,
      include,
      // test/helpers/server.ts reads it: the engine every test server of this project runs on.
      env: { MAILROOM_TEST_DB: name },
      // One PostgreSQL for the project's files (test/helpers/test-postgres.ts).
      globalSetup: name === 'postgres' ? ['test/helpers/postgres-global.ts'] : [],
      // Hang detectors, not measures: a test that passes ends as soon as it is done, whatever
      // these say. Sized for a 2-core machine at a load of 15-25, where a test that takes 5 s
      // quiet takes 30-60 s (a clean-clone run beside other work failed tests by 30 s limits).
      testTimeout: 120_000,
      hookTimeout: 180_000,
      pool: 'forks',
      isolate: false,
      // global.gc() for the tests that measure what memory something holds.
      execArgv: ['--expose-gc'],
    },
  };
}

export default defineConfig({
  test: {
    // Once for the run, before either project: the sources compiled for child processes and threads.
    globalSetup: ['test/helpers/compiled-global.ts'],
    reporters: ['default', './test/helpers/engine-summary.ts'],
    // More files at once than cores: most of a test's time is spent waiting on sockets, child
    // processes and timers (a quiet 2-core run used 1.4 cores on average with 2 workers, 1.63
    // with 3 once the static checks no longer ran beside the tests).
    maxWorkers: 4,
    // The known-long files first (a run without vitest's cache orders by file size).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [engine('sqlite', files.sqlite), engine('postgres', files.postgres)],
  },
});
