import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { AddressListsTable, ListDirection, ListType } from '../db/schema.js';

export type ListEntryRow = Selectable<AddressListsTable>;

/** Where an entry holds: one inbox, or (inboxId null) every inbox of the user. */
export interface ListPlace {
  userId: number;
  inboxId: number | null;
  direction: ListDirection;
  type: ListType;
}

export class AddressListStore {
  constructor(private readonly db: Db) {}

  private at(place: ListPlace) {
    const q = this.db.kysely
      .selectFrom('address_lists')
      .selectAll()
      .where('user_id', '=', place.userId)
      .where('direction', '=', place.direction)
      .where('type', '=', place.type);
    return place.inboxId === null ? q.where('inbox_id', 'is', null) : q.where('inbox_id', '=', place.inboxId);
  }

  /** One list's entries, newest first. */
  async list(place: ListPlace): Promise<ListEntryRow[]> {
    return await this.db.all(this.at(place).orderBy('id', 'desc'));
  }

  async find(place: ListPlace, entry: string): Promise<ListEntryRow | undefined> {
    return await this.db.first(this.at(place).where('entry', '=', entry));
  }

  /** Adds an entry, or sets the reason of the one already there; answers the entry as stored. */
  async put(place: ListPlace, entry: string, reason: string | null, at: string): Promise<ListEntryRow> {
    const existing = await this.find(place, entry);
    if (existing) {
      if (reason !== null && reason !== existing.reason) {
        await this.db.run(
          this.db.kysely.updateTable('address_lists').set({ reason }).where('id', '=', existing.id),
        );
      }
      return { ...existing, reason: reason ?? existing.reason };
    }
    const row = {
      user_id: place.userId,
      inbox_id: place.inboxId,
      direction: place.direction,
      type: place.type,
      entry,
      reason,
      created_at: at,
    };
    const { lastInsertRowid } = await this.db.insert('address_lists', row);
    return { ...row, id: lastInsertRowid };
  }

  async remove(place: ListPlace, entry: string): Promise<boolean> {
    let q = this.db.kysely
      .deleteFrom('address_lists')
      .where('user_id', '=', place.userId)
      .where('direction', '=', place.direction)
      .where('type', '=', place.type)
      .where('entry', '=', entry);
    q = place.inboxId === null ? q.where('inbox_id', 'is', null) : q.where('inbox_id', '=', place.inboxId);
    return (await this.db.run(q)).changes > 0;
  }

  /** Every entry of one direction that can decide for this inbox: its own and its user's. */
  async forInbox(userId: number, inboxId: number, direction: ListDirection): Promise<ListEntryRow[]> {
    // Read for every send and every delivery: SQL written once, not built per call.
    return await this.db.rawAll<ListEntryRow>(
      'SELECT * FROM address_lists WHERE user_id = ? AND direction = ? AND (inbox_id IS NULL OR inbox_id = ?)',
      userId,
      direction,
      inboxId,
    );
  }
}
