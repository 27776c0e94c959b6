import type { Db } from '../db/connection.js';
import type { DomainsTable } from '../db/schema.js';
import type { Sealer } from './sealing.js';

/** A hosted domain as the rest of the server sees it: the private key stays in the store. */
export type DomainRow = Omit<DomainsTable, 'dkim_private_key'>;
export type NewDomain = DomainsTable;

/** What DKIM signing takes; the private key is opened only for this. */
export interface DkimKey {
  domain: string;
  selector: string;
  privateKey: string;
}

const COLUMNS = ['name', 'dkim_selector', 'dkim_public_key', 'created_at'] as const;

export class DomainStore {
  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
  ) {}

  /** Stores the DKIM private key sealed with MAILROOM_SECRET. */
  async create(row: NewDomain): Promise<void> {
    const dkim_private_key = this.sealer.seal('dkim-private-key', row.dkim_private_key);
    await this.db.run(this.db.kysely.insertInto('domains').values({ ...row, dkim_private_key }));
  }

  async find(name: string): Promise<DomainRow | undefined> {
    return await this.db.first(
      this.db.kysely.selectFrom('domains').select(COLUMNS).where('name', '=', name.toLowerCase()),
    );
  }

  async list(): Promise<DomainRow[]> {
    return await this.db.all(this.db.kysely.selectFrom('domains').select(COLUMNS).orderBy('name'));
  }

  async signingKey(name: string): Promise<DkimKey | undefined> {
    const row = await this.db.first(
      this.db.kysely
        .selectFrom('domains')
        .select(['name', 'dkim_selector', 'dkim_private_key'])
        .where('name', '=', name.toLowerCase()),
    );
    if (!row) return undefined;
    const privateKey = this.sealer.open('dkim-private-key', row.dkim_private_key);
    return { domain: row.name, selector: row.dkim_selector, privateKey };
  }

  async remove(name: string): Promise<boolean> {
    return (
      (await this.db.run(this.db.kysely.deleteFrom('domains').where('name', '=', name.toLowerCase())))
        .changes > 0
    );
  }
}
