import type { Db } from '../db/connection.js';
import type { InboxesTable } from '../db/schema.js';
import type { Selectable } from 'kysely';
import { nowIso } from './ids.js';

export type InboxRow = Selectable<InboxesTable>;

/** The folders every inbox has, with their RFC 6154 special-use roles. */
export const STANDARD_FOLDERS = [
  { name: 'INBOX', specialUse: '\\Inbox' },
  { name: 'Sent', specialUse: '\\Sent' },
  { name: 'Drafts', specialUse: '\\Drafts' },
  { name: 'Trash', specialUse: '\\Trash' },
  { name: 'Spam', specialUse: '\\Junk' },
] as const;

export class InboxStore {
  constructor(private readonly db: Db) {}

  create(input: {
    address: string;
    userId: number;
    kind: 'local' | 'imap';
    displayName?: string;
    remoteConfig?: string | null;
  }): InboxRow {
    return this.db.transaction(() => {
      const created_at = nowIso();
      const { lastInsertRowid: id } = this.db.run(
        this.db.kysely.insertInto('inboxes').values({
          address: input.address.toLowerCase(),
          user_id: input.userId,
          kind: input.kind,
          display_name: input.displayName ?? '',
          remote_config: input.remoteConfig ?? null,
          created_at,
        }),
      );
      for (const folder of STANDARD_FOLDERS) {
        this.db.run(
          this.db.kysely
            .insertInto('folders')
            .values({ inbox_id: id, name: folder.name, special_use: folder.specialUse, created_at }),
        );
      }
      return this.get(id)!;
    });
  }

  // The two lookups every inbound message makes: plain prepared statements, no query building.
  get(id: number): InboxRow | undefined {
    return this.db.raw('SELECT * FROM inboxes WHERE id = ?').get(id) as InboxRow | undefined;
  }

  findByAddress(address: string): InboxRow | undefined {
    return this.db.raw('SELECT * FROM inboxes WHERE address = ?').get(address.toLowerCase()) as
      InboxRow | undefined;
  }

  list(userId?: number): InboxRow[] {
    let q = this.db.kysely.selectFrom('inboxes').selectAll().orderBy('id');
    if (userId !== undefined) q = q.where('user_id', '=', userId);
    return this.db.all(q);
  }

  remove(id: number): boolean {
    return this.db.run(this.db.kysely.deleteFrom('inboxes').where('id', '=', id)).changes > 0;
  }

  /** Reserves the next uid of an inbox. Call inside the transaction that inserts the message. */
  allocateUid(inboxId: number): number {
    const row = this.db
      .raw('UPDATE inboxes SET uid_next = uid_next + 1 WHERE id = ? RETURNING uid_next - 1 AS uid')
      .get(inboxId) as { uid: number } | undefined;
    if (!row) throw new Error(`inbox ${inboxId} vanished`);
    return row.uid;
  }

  setSyncState(
    id: number,
    state: { sync_state?: string | null; sync_error?: string | null; last_sync_at?: string | null },
  ): void {
    this.db.run(this.db.kysely.updateTable('inboxes').set(state).where('id', '=', id));
  }
}
