import type { Db } from '../db/connection.js';
import type { UsersTable } from '../db/schema.js';
import { nowIso } from './ids.js';

export type UserRow = { id: number; name: string; created_at: string };

export class UserStore {
  constructor(private readonly db: Db) {}

  create(name: string): UserRow {
    const created_at = nowIso();
    const { lastInsertRowid } = this.db.run(this.db.kysely.insertInto('users').values({ name, created_at }));
    return { id: lastInsertRowid, name, created_at };
  }

  list(): UserRow[] {
    return this.db.all(this.db.kysely.selectFrom('users').selectAll().orderBy('id'));
  }

  /** By numeric id or by name (case-insensitive). */
  find(idOrName: string | number): UserRow | undefined {
    const q = this.db.kysely.selectFrom('users').selectAll();
    if (typeof idOrName === 'number' || /^\d+$/.test(idOrName)) {
      return (
        this.db.first(q.where('id', '=', Number(idOrName))) ??
        this.db.first(q.where('name', '=', String(idOrName)))
      );
    }
    return this.db.first(q.where('name', '=', idOrName));
  }

  remove(id: number): boolean {
    return this.db.run(this.db.kysely.deleteFrom('users').where('id', '=', id)).changes > 0;
  }

  count(): number {
    const row = this.db.first(
      this.db.kysely.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')),
    );
    return Number(row?.n ?? 0);
  }
}

export type { UsersTable };
