import type { Db } from '../db/connection.js';
import { nowIso } from './ids.js';

/** The settings row /readyz rewrites to prove the database takes writes. */
const PROBE_KEY = 'write_probe';

export class HealthStore {
  constructor(private readonly db: Db) {}

  /**
   * Commits a one-row write (the time of this probe). A write rolled back before commit would
   * prove nothing on a file that has turned read-only: SQLite touches the file only at commit.
   * Throws what the write threw.
   */
  async probeWrite(): Promise<void> {
    const at = nowIso();
    await this.db.run(
      this.db.kysely
        .insertInto('settings')
        .values({ key: PROBE_KEY, value: at })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: at })),
    );
  }
}
