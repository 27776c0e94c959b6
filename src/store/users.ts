import type { Db } from '../db/connection.js';
import type { UsersTable } from '../db/schema.js';
import { nowIso } from './ids.js';

export type UserRow = { id: number; name: string; created_at: string };

export class UserStore {
  constructor(private readonly db: Db) {}

  async create(name: string): Promise<UserRow> {
    const created_at = nowIso();
    const { lastInsertRowid } = await this.db.run(
      this.db.kysely.insertInto('users').values({ name, created_at }),
    );
    return { id: lastInsertRowid, name, created_at };
  }

  async list(): Promise<UserRow[]> {
    return await this.db.all(this.db.kysely.selectFrom('users').selectAll().orderBy('id'));
  }

  /** By numeric id or by name (case-insensitive). */
  async find(idOrName: string | number): Promise<UserRow | undefined> {
    const q = this.db.kysely.selectFrom('users').selectAll();
    if (typeof idOrName === 'number' || /^\d+$/.test(idOrName)) {
      return (
        (await this.db.first(q.where('id', '=', Number(idOrName)))) ??
        (await this.db.first(q.where('name', '=', String(idOrName))))
      );
    }
    return await this.db.first(q.where('name', '=', idOrName));
  }

  async remove(id: number): Promise<boolean> {
    return (await this.db.run(this.db.kysely.deleteFrom('users').where('id', '=', id))).changes > 0;
  }

  async count(): Promise<number> {
    const row = await this.db.first(
      this.db.kysely.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')),
    );
    return Number(row?.n ?? 0);
  }
}

export type { UsersTable };
