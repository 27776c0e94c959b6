import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { DashboardSessionsTable } from '../db/schema.js';
import { sha256Hex } from './ids.js';

export type SessionRow = Selectable<DashboardSessionsTable>;

/**
 * The dashboard's sign-in state, all in rows (ARCHITECTURE rule 8: any node can serve a
 * signed-in person): sessions and one-time sign-in links, each stored as the SHA-256 of its
 * token, and the failed sign-ins per client address.
 */
export class DashboardSessionStore {
  constructor(private readonly db: Db) {}

  async createSession(row: Omit<SessionRow, 'token_hash'> & { token: string }): Promise<void> {
    const { token, ...rest } = row;
    await this.db.run(
      this.db.kysely.insertInto('dashboard_sessions').values({ ...rest, token_hash: sha256Hex(token) }),
    );
  }

  /** The session of a cookie's token, when it has not expired at `now`. */
  async session(token: string, now: string): Promise<SessionRow | undefined> {
    return await this.db.first(
      this.db.kysely
        .selectFrom('dashboard_sessions')
        .selectAll()
        .where('token_hash', '=', sha256Hex(token))
        .where('expires_at', '>', now),
    );
  }

  async isActive(tokenHash: string, now: string): Promise<boolean> {
    const row = await this.db.first(
      this.db.kysely
        .selectFrom('dashboard_sessions')
        .select('token_hash')
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', now),
    );
    return row !== undefined;
  }

  async extend(tokenHash: string, lastSeenAt: string, expiresAt: string): Promise<void> {
    await this.db.run(
      this.db.kysely
        .updateTable('dashboard_sessions')
        .set({ last_seen_at: lastSeenAt, expires_at: expiresAt })
        .where('token_hash', '=', tokenHash),
    );
  }

  async removeSession(tokenHash: string): Promise<void> {
    await this.db.run(this.db.kysely.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash));
  }

  /** Ends every session of a user (a new password). */
  async removeSessionsOf(userId: number): Promise<void> {
    await this.db.run(this.db.kysely.deleteFrom('dashboard_sessions').where('user_id', '=', userId));
  }

  async createLink(token: string, userId: number, createdAt: string, expiresAt: string): Promise<void> {
    await this.db.run(
      this.db.kysely.insertInto('sign_in_links').values({
        token_hash: sha256Hex(token),
        user_id: userId,
        created_at: createdAt,
        expires_at: expiresAt,
      }),
    );
  }

  /**
   * Uses up a sign-in link: deletes it and answers its user when it existed and had not expired.
   * The delete decides, so of two requests racing for one link only one gets the user.
   */
  async takeLink(token: string, now: string): Promise<number | undefined> {
    const hash = sha256Hex(token);
    const row = await this.db.first(
      this.db.kysely
        .selectFrom('sign_in_links')
        .select(['user_id', 'expires_at'])
        .where('token_hash', '=', hash),
    );
    if (!row) return undefined;
    const deleted = await this.db.run(
      this.db.kysely.deleteFrom('sign_in_links').where('token_hash', '=', hash),
    );
    return deleted.changes > 0 && row.expires_at > now ? row.user_id : undefined;
  }

  /** Failures of a client in its current window (started after `windowStart`), 0 when none. */
  async failures(client: string, windowStart: string): Promise<{ count: number; since: string | null }> {
    const row = await this.db.first(
      this.db.kysely
        .selectFrom('sign_in_failures')
        .select(['failures', 'window_start'])
        .where('client', '=', client)
        .where('window_start', '>', windowStart),
    );
    return row ? { count: Number(row.failures), since: row.window_start } : { count: 0, since: null };
  }

  /** Counts one failure: in the client's window when it is still open (after `windowStart`), else a new one. */
  async addFailure(client: string, now: string, windowStart: string): Promise<void> {
    await this.db.rawRun(
      `INSERT INTO sign_in_failures (client, window_start, failures) VALUES (?, ?, 1)
         ON CONFLICT (client) DO UPDATE SET
           failures = CASE WHEN sign_in_failures.window_start > ? THEN sign_in_failures.failures + 1 ELSE 1 END,
           window_start = CASE WHEN sign_in_failures.window_start > ? THEN sign_in_failures.window_start ELSE excluded.window_start END`,
      client,
      now,
      windowStart,
      windowStart,
    );
  }

  async clearFailures(client: string): Promise<void> {
    await this.db.run(this.db.kysely.deleteFrom('sign_in_failures').where('client', '=', client));
  }

  /** Deletes expired sessions and links and closed failure windows; returns how many rows went. */
  async prune(now: string, failureWindowStart: string): Promise<number> {
    const a = await this.db.run(
      this.db.kysely.deleteFrom('dashboard_sessions').where('expires_at', '<=', now),
    );
    const b = await this.db.run(this.db.kysely.deleteFrom('sign_in_links').where('expires_at', '<=', now));
    const c = await this.db.run(
      this.db.kysely.deleteFrom('sign_in_failures').where('window_start', '<=', failureWindowStart),
    );
    return a.changes + b.changes + c.changes;
  }
}
