import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { DashboardSessionsTable } from '../db/schema.js';
import { sha256Hex } from './ids.js';

export type SessionRow = Selectable<DashboardSessionsTable>;

/** A subject's window as an attempt found it: which window to give a place back to. */
export interface AttemptWindow {
  subject: string;
  window_start: string;
}

/** Thrown inside reserveAttempt's transaction to roll back the places it did get. */
class NoRoom extends Error {
  constructor(readonly full: AttemptWindow[]) {
    super('no room in a sign-in window');
  }
}

/**
 * The dashboard's sign-in state, all in rows (ARCHITECTURE rule 8: any node can serve a
 * signed-in person): sessions and one-time sign-in links, each stored as the SHA-256 of its
 * token, and the sign-in attempts per client address and per user name.
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

  /**
   * Reserves a place for one sign-in attempt in the window of every subject (a client address, a
   * user name), all or none: in one statement, each subject's row gains an attempt when its window
   * is over (it then starts a new one, `now`), holds no attempt, or holds fewer than `limit`. The
   * row lock each update takes makes attempts sent together, to any node, take places one at a
   * time. When a subject's window is full nothing is kept (the transaction rolls back) and the
   * full windows are answered, to say how long to wait.
   */
  async reserveAttempt(
    subjects: string[],
    at: { now: string; windowStart: string; limit: number },
  ): Promise<{ reserved: AttemptWindow[]; full: AttemptWindow[] }> {
    const open = 'sign_in_attempts.window_start > ? AND sign_in_attempts.attempts > 0';
    try {
      return await this.db.transaction(async () => {
        const reserved = await this.db.rawAll<AttemptWindow>(
          `INSERT INTO sign_in_attempts (subject, window_start, attempts)
             VALUES ${subjects.map(() => '(?, ?, 1)').join(', ')}
           ON CONFLICT (subject) DO UPDATE SET
             attempts = CASE WHEN ${open} THEN sign_in_attempts.attempts + 1 ELSE 1 END,
             window_start = CASE WHEN ${open} THEN sign_in_attempts.window_start ELSE excluded.window_start END
           WHERE sign_in_attempts.window_start <= ? OR sign_in_attempts.attempts < ?
           RETURNING subject, window_start`,
          ...subjects.flatMap((subject) => [subject, at.now]),
          at.windowStart,
          at.windowStart,
          at.windowStart,
          at.limit,
        );
        if (reserved.length === subjects.length) return { reserved, full: [] };
        const taken = new Set(reserved.map((r) => r.subject));
        const full = await this.db.all(
          this.db.kysely
            .selectFrom('sign_in_attempts')
            .select(['subject', 'window_start'])
            .where(
              'subject',
              'in',
              subjects.filter((s) => !taken.has(s)),
            ),
        );
        throw new NoRoom(full);
      });
    } catch (error) {
      if (error instanceof NoRoom) return { reserved: [], full: error.full };
      throw error;
    }
  }

  /**
   * Gives back the places an attempt reserved (a right password is no failure), each in the
   * window it was reserved in: a window that has since ended and started again is not touched.
   */
  async releaseAttempt(reserved: AttemptWindow[]): Promise<void> {
    if (reserved.length === 0) return;
    await this.db.run(
      this.db.kysely
        .updateTable('sign_in_attempts')
        .set((eb) => ({ attempts: eb('attempts', '-', 1) }))
        .where('attempts', '>', 0)
        .where((eb) =>
          eb.or(
            reserved.map((r) =>
              eb.and([eb('subject', '=', r.subject), eb('window_start', '=', r.window_start)]),
            ),
          ),
        ),
    );
  }

  /** Deletes expired sessions and links and ended attempt windows; returns how many rows went. */
  async prune(now: string, attemptWindowStart: string): Promise<number> {
    const a = await this.db.run(
      this.db.kysely.deleteFrom('dashboard_sessions').where('expires_at', '<=', now),
    );
    const b = await this.db.run(this.db.kysely.deleteFrom('sign_in_links').where('expires_at', '<=', now));
    const c = await this.db.run(
      this.db.kysely.deleteFrom('sign_in_attempts').where('window_start', '<=', attemptWindowStart),
    );
    return a.changes + b.changes + c.changes;
  }
}
