import type { Db } from '../db/connection.js';

/**
 * Who an inbox has exchanged mail with (contract 15, mode approve_new): every address it received
 * mail from outside Spam or sent mail to, written as mail is filed. A recipient is new when its
 * (inbox, address) key is absent: one primary-key probe per recipient on both engines.
 */
export class CorrespondentStore {
  constructor(private readonly db: Db) {}

  async add(inboxId: number, addresses: readonly string[]): Promise<void> {
    const distinct = [...new Set(addresses.map((a) => a.toLowerCase()).filter((a) => a !== ''))];
    if (distinct.length === 0) return;
    await this.db.run(
      this.db.kysely
        .insertInto('correspondents')
        .values(distinct.map((address) => ({ inbox_id: inboxId, address })))
        .onConflict((oc) => oc.doNothing()),
    );
  }

  /** Those of `addresses` (lower-case) the inbox has never exchanged mail with. */
  async unknown(inboxId: number, addresses: readonly string[]): Promise<string[]> {
    if (addresses.length === 0) return [];
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom('correspondents')
        .select('address')
        .where('inbox_id', '=', inboxId)
        .where('address', 'in', [...new Set(addresses)]),
    );
    const known = new Set(rows.map((r) => r.address));
    return addresses.filter((a) => !known.has(a));
  }
}
