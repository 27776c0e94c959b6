import type { TestProject } from 'vitest/node';
import { makeTemplate, startPostgres } from './postgres.js';

/**
 * globalSetup of the `postgres` project (vitest.config.ts): one PostgreSQL for the whole run,
 * started only when that project has files to run; its files take a database each from it
 * through testPostgres(). Files of the other project that need PostgreSQL start their own.
 * Migrated once here, into a template each test server's database is copied from.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide('postgresAdminUrl', server.adminUrl);
  project.provide('postgresTemplate', await makeTemplate(server.adminUrl, 'mailroom_template'));
  return () => server.stop();
}
