import crypto from 'node:crypto';
import type { Db } from '../db/connection.js';
import { newId, nowIso, sha256Hex } from './ids.js';
import { hitStatement, windowCountOf } from './rate-windows.js';
import type { HitRow, WindowCount } from './rate-windows.js';

/** Keys look like `mr_live_<43 chars>`; the prefix makes a leaked key easy to grep for. */
export const API_KEY_PREFIX = 'mr_live_';

export interface ApiKeyRow {
  id: string;
  user_id: number;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** The addresses it reaches (lower-case), or null for every inbox of its user. */
  inboxes: string[] | null;
  /** What it may do (read, organise, send, manage, approve). */
  permissions: string[];
}

/** How far a new key reaches; its maker decides (mailbox/operations/admin.ts). */
export interface KeyReach {
  inboxes: string[] | null;
  permissions: string[];
}

const COLUMNS = [
  'id',
  'user_id',
  'name',
  'prefix',
  'created_at',
  'last_used_at',
  'revoked_at',
  'inboxes',
  'permissions',
] as const;

function rowOf(stored: Record<(typeof COLUMNS)[number], unknown>): ApiKeyRow {
  return {
    ...(stored as Omit<ApiKeyRow, 'inboxes' | 'permissions'>),
    inboxes: stored.inboxes === null ? null : (JSON.parse(stored.inboxes as string) as string[]),
    permissions: JSON.parse(stored.permissions as string) as string[],
  };
}

export class ApiKeyStore {
  constructor(private readonly db: Db) {}

  /** Returns the row and the plaintext key (random unless given), which is never stored. */
  async create(
    userId: number,
    name: string,
    reach: KeyReach,
    key = API_KEY_PREFIX + crypto.randomBytes(32).toString('base64url'),
  ): Promise<{ row: ApiKeyRow; key: string }> {
    const row: ApiKeyRow = {
      id: newId('key', 9),
      user_id: userId,
      name,
      prefix: key.slice(0, API_KEY_PREFIX.length + 6),
      created_at: nowIso(),
      last_used_at: null,
      revoked_at: null,
      ...reach,
    };
    await this.db.run(
      this.db.kysely.insertInto('api_keys').values({
        ...row,
        inboxes: row.inboxes === null ? null : JSON.stringify(row.inboxes),
        permissions: JSON.stringify(row.permissions),
        hash: sha256Hex(key),
      }),
    );
    return { row, key };
  }

  /** The active key's row for a presented plaintext key, or undefined. */
  async authenticate(key: string): Promise<ApiKeyRow | undefined> {
    if (!key.startsWith(API_KEY_PREFIX)) return undefined;
    const stored = await this.db.first(
      this.db.kysely
        .selectFrom('api_keys')
        .select(COLUMNS)
        .where('hash', '=', sha256Hex(key))
        .where('revoked_at', 'is', null),
    );
    return stored ? rowOf(stored) : undefined;
  }

  /**
   * `authenticate`, with a hit counted in the key's rate window (`key:<id>`, RateWindowStore.hit)
   * by the same statement: on PostgreSQL, where the count is a row the nodes share, a request's
   * key and its count are one round trip instead of two in a row. An unknown or revoked key counts
   * nothing. PostgreSQL only: SQLite cannot return rows from an INSERT inside a WITH.
   */
  async authenticateCounting(
    key: string,
    windowMs: number,
  ): Promise<{ row: ApiKeyRow; count: WindowCount } | undefined> {
    if (this.db.engine !== 'postgres') throw new Error('authenticateCounting is for PostgreSQL');
    if (!key.startsWith(API_KEY_PREFIX)) return undefined;
    const hit = hitStatement(
      this.db,
      `'key:' || found.id`,
      `${this.db.dialect.fromAsyncCommit}, found`,
      windowMs,
    );
    const stored = await this.db.rawFirst<Record<(typeof COLUMNS)[number], unknown> & HitRow>(
      `WITH found AS (SELECT ${COLUMNS.map((c) => `"${c}"`).join(', ')} FROM "api_keys"
                        WHERE "hash" = ? AND "revoked_at" IS NULL),
            counted AS (${hit.sql})
       SELECT found.*, counted.hits, counted.window_start, counted.now FROM found, counted`,
      sha256Hex(key),
      ...hit.params,
    );
    if (!stored) return undefined;
    const { hits, window_start, now, ...found } = stored;
    return { row: rowOf(found), count: windowCountOf({ hits, window_start, now }, windowMs) };
  }

  /** The key's row while it exists and is not revoked. */
  async active(id: string): Promise<ApiKeyRow | undefined> {
    const stored = await this.db.first(
      this.db.kysely
        .selectFrom('api_keys')
        .select(COLUMNS)
        .where('id', '=', id)
        .where('revoked_at', 'is', null),
    );
    return stored ? rowOf(stored) : undefined;
  }

  /** Whether the key still exists (its user was not removed) and is not revoked. */
  async isActive(id: string): Promise<boolean> {
    return (
      (await this.db.first(
        this.db.kysely
          .selectFrom('api_keys')
          .select('id')
          .where('id', '=', id)
          .where('revoked_at', 'is', null),
      )) !== undefined
    );
  }

  async touch(id: string, at = nowIso()): Promise<void> {
    await this.db.run(this.db.kysely.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id));
  }

  async list(userId?: number): Promise<ApiKeyRow[]> {
    let q = this.db.kysely.selectFrom('api_keys').select(COLUMNS).orderBy('created_at');
    if (userId !== undefined) q = q.where('user_id', '=', userId);
    return (await this.db.all(q)).map(rowOf);
  }

  async revoke(id: string): Promise<boolean> {
    return (
      (
        await this.db.run(
          this.db.kysely
            .updateTable('api_keys')
            .set({ revoked_at: nowIso() })
            .where('id', '=', id)
            .where('revoked_at', 'is', null),
        )
      ).changes > 0
    );
  }
}
