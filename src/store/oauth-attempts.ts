import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { OAuthAttemptsTable } from '../db/schema.js';
import { sha256Hex } from './ids.js';

export type OAuthAttemptRow = Selectable<OAuthAttemptsTable>;

/**
 * The dashboard's OAuth2 authorization attempts: one row from the "Connect" button to the
 * provider's redirect back, which may reach another node (ARCHITECTURE rule 8). The state is
 * found by its SHA-256, as the sign-in tokens are.
 */
export class OAuthAttemptStore {
  constructor(private readonly db: Db) {}

  async create(row: Omit<Insertable<OAuthAttemptsTable>, 'state_hash'> & { state: string }): Promise<void> {
    const { state, ...rest } = row;
    await this.db.run(
      this.db.kysely.insertInto('oauth_attempts').values({ ...rest, state_hash: sha256Hex(state) }),
    );
  }

  /** The attempt a state belongs to, used or expired alike (the caller tells which). */
  async find(state: string): Promise<OAuthAttemptRow | undefined> {
    return await this.db.first(
      this.db.kysely.selectFrom('oauth_attempts').selectAll().where('state_hash', '=', sha256Hex(state)),
    );
  }

  /**
   * Uses up an attempt: true for the one request whose delete removed it, so of two callbacks
   * racing with one state only one goes on.
   */
  async take(stateHash: string): Promise<boolean> {
    const deleted = await this.db.run(
      this.db.kysely.deleteFrom('oauth_attempts').where('state_hash', '=', stateHash),
    );
    return deleted.changes > 0;
  }

  /** Forgets attempts that expired at or before `now` (no one came back from the provider). */
  async prune(now: string): Promise<number> {
    return (await this.db.run(this.db.kysely.deleteFrom('oauth_attempts').where('expires_at', '<=', now)))
      .changes;
  }
}
