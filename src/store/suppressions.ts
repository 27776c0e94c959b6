import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { SuppressionsTable } from '../db/schema.js';

export type SuppressionRow = Selectable<SuppressionsTable>;

export class SuppressionStore {
  constructor(private readonly db: Db) {}

  /** A user's suppressions, newest first. */
  async list(userId: number): Promise<SuppressionRow[]> {
    return await this.db.all(
      this.db.kysely
        .selectFrom('suppressions')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('address'),
    );
  }

  /** Which of these lower-case addresses the user's mail is not sent to. */
  async among(userId: number, addresses: string[]): Promise<Set<string>> {
    if (addresses.length === 0) return new Set();
    const rows = await this.db.rawAll<{ address: string }>(
      `SELECT address FROM suppressions WHERE user_id = ? AND address IN (${addresses.map(() => '?').join(', ')})`,
      userId,
      ...addresses,
    );
    return new Set(rows.map((row) => row.address));
  }

  /** Suppresses each address not suppressed already (the first reason and date stay). */
  async add(userId: number, addresses: string[], reason: string, at: string): Promise<void> {
    if (addresses.length === 0) return;
    await this.db.run(
      this.db.kysely
        .insertInto('suppressions')
        .values(addresses.map((address) => ({ user_id: userId, address, reason, created_at: at })))
        .onConflict((oc) => oc.doNothing()),
    );
  }

  async remove(userId: number, address: string): Promise<boolean> {
    const q = this.db.kysely
      .deleteFrom('suppressions')
      .where('user_id', '=', userId)
      .where('address', '=', address);
    return (await this.db.run(q)).changes > 0;
  }
}
