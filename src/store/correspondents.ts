import type { Db } from '../db/connection.js';

interface Row {
  inbox_id: number;
  address: string;
}

/**
 * Who an inbox has exchanged mail with (contract 15, mode approve_new): every address it received
 * mail from outside Spam or sent mail to, written as mail is filed. A recipient is new when its
 * (inbox, address) key is absent: one primary-key probe per recipient on both engines.
 */
export class CorrespondentStore {
  constructor(private readonly db: Db) {}

  /**
   * On PostgreSQL written at COMMIT with the rest of the transaction's (a batch of filed mail
   * adds one statement, not one per message), in key order so two batches never wait on each
   * other crosswise; nothing reads them in the transaction that adds them.
   */
  async add(inboxId: number, addresses: readonly string[]): Promise<void> {
    const rows = addresses
      .filter((a) => a !== '')
      .map((a) => ({ inbox_id: inboxId, address: a.toLowerCase() }));
    if (rows.length === 0) return;
    if (!this.db.writeAtCommit(this.write, rows)) await this.write([rows]);
  }

  private readonly write = async (batches: Row[][]): Promise<void> => {
    const byKey = new Map(batches.flat().map((row) => [`${row.inbox_id} ${row.address}`, row]));
    const rows = [...byKey.values()].sort(
      (a, b) => a.inbox_id - b.inbox_id || (a.address < b.address ? -1 : 1),
    );
    await this.db.rawRun(
      `INSERT INTO correspondents (inbox_id, address) VALUES ${rows.map(() => '(?, ?)').join(', ')} ON CONFLICT DO NOTHING`,
      ...rows.flatMap((row) => [row.inbox_id, row.address]),
    );
  };

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
