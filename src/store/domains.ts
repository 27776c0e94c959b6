import type { Db } from '../db/connection.js';
import type { DomainsTable } from '../db/schema.js';

export type DomainRow = DomainsTable;

export class DomainStore {
  constructor(private readonly db: Db) {}

  create(row: DomainRow): void {
    this.db.run(this.db.kysely.insertInto('domains').values(row));
  }

  find(name: string): DomainRow | undefined {
    return this.db.first(
      this.db.kysely.selectFrom('domains').selectAll().where('name', '=', name.toLowerCase()),
    );
  }

  list(): DomainRow[] {
    return this.db.all(this.db.kysely.selectFrom('domains').selectAll().orderBy('name'));
  }

  remove(name: string): boolean {
    return (
      this.db.run(this.db.kysely.deleteFrom('domains').where('name', '=', name.toLowerCase())).changes > 0
    );
  }
}
