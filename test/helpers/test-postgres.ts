import { inject } from 'vitest';
import { databasesOn, startPostgres } from './postgres.js';
import type { Postgres, PostgresDatabases } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The server test/helpers/postgres-global.ts started for the `postgres` project's files. */
    postgresAdminUrl: string | undefined;
    /** Its database holding every migration, to copy (createDatabase({ migrated: true })). */
    postgresTemplate: string | undefined;
  }
}

let own: Promise<Postgres> | undefined;

/**
 * The PostgreSQL this test file uses: the run's shared server (the `postgres` project), else
 * one started for this test process on first call, which goes away when the process ends. A test
 * that stops or kills the server must start its own with startPostgres() instead.
 */
export async function testPostgres(): Promise<PostgresDatabases> {
  const shared = inject('postgresAdminUrl');
  if (shared) return databasesOn(shared, inject('postgresTemplate'));
  own ??= startPostgres();
  return own;
}
