import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/consumer/ is another project's suite: test/docs/package-consumer.test.ts runs it there.
    exclude: ['test/bench/**', 'test/consumer/**', 'node_modules/**'],
    // One PostgreSQL for the run when MAILROOM_TEST_DB=postgres (test/helpers/test-postgres.ts).
    globalSetup: ['test/helpers/postgres-global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
