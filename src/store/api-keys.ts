import crypto from 'node:crypto';
import type { Db } from '../db/connection.js';
import { newId, nowIso, sha256Hex } from './ids.js';

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
}

export class ApiKeyStore {
  constructor(private readonly db: Db) {}

  /** Returns the row and the plaintext key (random unless given), which is never stored. */
  async create(
    userId: number,
    name = '',
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
    };
    await this.db.run(this.db.kysely.insertInto('api_keys').values({ ...row, hash: sha256Hex(key) }));
    return { row, key };
  }

  /** The active key's row for a presented plaintext key, or undefined. */
  async authenticate(key: string): Promise<ApiKeyRow | undefined> {
    if (!key.startsWith(API_KEY_PREFIX)) return undefined;
    return await this.db.first(
      this.db.kysely
        .selectFrom('api_keys')
        .select(['id', 'user_id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
        .where('hash', '=', sha256Hex(key))
        .where('revoked_at', 'is', null),
    );
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
    let q = this.db.kysely
      .selectFrom('api_keys')
      .select(['id', 'user_id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
      .orderBy('created_at');
    if (userId !== undefined) q = q.where('user_id', '=', userId);
    return await this.db.all(q);
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
