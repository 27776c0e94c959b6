import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres.js';

/**
 * vitest globalSetup: with MAILROOM_TEST_DB=postgres, one PostgreSQL for the whole run (test
 * files take a database each from it through testPostgres()). Otherwise nothing is started here:
 * a test file that needs PostgreSQL starts its own on first use.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.MAILROOM_TEST_DB !== 'postgres') {
    project.provide('postgresAdminUrl', '');
    return undefined;
  }
  const server = await startPostgres();
  project.provide('postgresAdminUrl', server.adminUrl);
  return () => server.stop();
}
