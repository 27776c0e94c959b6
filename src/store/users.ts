import type { Db } from '../db/connection.js';
import { FIRST_START_LOCK_KEY } from '../db/postgres/lock-keys.js';
import type { UsersTable } from '../db/schema.js';
import { nowIso } from './ids.js';
import { removeUnusedSources } from './message-sources.js';

/** A user as every reader sees it: never the password hash (`passwordHashOf` reads that alone). */
export type UserRow = { id: number; name: string; admin: boolean; created_at: string };

const COLUMNS = ['id', 'name', 'admin', 'created_at'] as const;
const toRow = (row: { id: number; name: string; admin: number; created_at: string }): UserRow => ({
  id: row.id,
  name: row.name,
  admin: Number(row.admin) === 1,
  created_at: row.created_at,
});

export class UserStore {
  constructor(private readonly db: Db) {}

  async create(name: string, options: { admin?: boolean; passwordHash?: string } = {}): Promise<UserRow> {
    const created_at = nowIso();
    const admin = options.admin ?? false;
    const { lastInsertRowid } = await this.db.run(
      this.db.kysely
        .insertInto('users')
        .values({ name, created_at, admin: admin ? 1 : 0, password_hash: options.passwordHash ?? null }),
    );
    return { id: lastInsertRowid, name, admin, created_at };
  }

  async list(): Promise<UserRow[]> {
    return (await this.db.all(this.db.kysely.selectFrom('users').select(COLUMNS).orderBy('id'))).map(toRow);
  }

  /** By numeric id or by name (case-insensitive). */
  async find(idOrName: string | number): Promise<UserRow | undefined> {
    const q = this.db.kysely.selectFrom('users').select(COLUMNS);
    let row;
    if (typeof idOrName === 'number' || /^\d+$/.test(idOrName)) {
      row =
        (await this.db.first(q.where('id', '=', Number(idOrName)))) ??
        (await this.db.first(q.where('name', '=', String(idOrName))));
    } else {
      row = await this.db.first(q.where('name', '=', idOrName));
    }
    return row ? toRow(row) : undefined;
  }

  /** The stored password hash of a user by name (case-insensitive), with the user; null hash: none set. */
  async passwordHashOf(name: string): Promise<{ user: UserRow; hash: string | null } | undefined> {
    const row = await this.db.first(
      this.db.kysely
        .selectFrom('users')
        .select([...COLUMNS, 'password_hash'])
        .where('name', '=', name),
    );
    return row ? { user: toRow(row), hash: row.password_hash } : undefined;
  }

  async setPasswordHash(id: number, hash: string | null): Promise<void> {
    await this.db.run(this.db.kysely.updateTable('users').set({ password_hash: hash }).where('id', '=', id));
  }

  async setAdmin(id: number, admin: boolean): Promise<void> {
    await this.db.run(
      this.db.kysely
        .updateTable('users')
        .set({ admin: admin ? 1 : 0 })
        .where('id', '=', id),
    );
  }

  /** Removes it with all its mail; the sources no message points at any more go with them. */
  async remove(id: number): Promise<boolean> {
    return await this.db.transaction(async () => {
      const removed =
        (await this.db.run(this.db.kysely.deleteFrom('users').where('id', '=', id))).changes > 0;
      if (removed) await removeUnusedSources(this.db);
      return removed;
    });
  }

  /**
   * Inside a transaction: waits until no other node is making the first user, so nodes started
   * together on an empty database bootstrap it once. SQLite's transaction holds the whole file.
   */
  async holdFirstStart(): Promise<void> {
    if (this.db.dialect.rowLocks)
      await this.db.rawFirst('SELECT pg_advisory_xact_lock(?)', FIRST_START_LOCK_KEY);
  }

  async count(): Promise<number> {
    const row = await this.db.first(
      this.db.kysely.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')),
    );
    return Number(row?.n ?? 0);
  }
}

export type { UsersTable };
