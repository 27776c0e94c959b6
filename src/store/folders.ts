import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { FoldersTable } from '../db/schema.js';
import { nowIso } from './ids.js';

export type FolderRow = Selectable<FoldersTable>;
export type FolderWithCounts = FolderRow & { total: number; unread: number };

export class FolderStore {
  constructor(private readonly db: Db) {}

  /** Case-insensitive; runs for every inbound message, so a plain prepared statement. */
  find(inboxId: number, name: string): FolderRow | undefined {
    return this.db
      .raw('SELECT * FROM folders WHERE inbox_id = ? AND lower(name) = ?')
      .get(inboxId, name.toLowerCase()) as FolderRow | undefined;
  }

  findBySpecialUse(inboxId: number, specialUse: string): FolderRow | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('folders')
        .selectAll()
        .where('inbox_id', '=', inboxId)
        .where('special_use', '=', specialUse),
    );
  }

  get(id: number): FolderRow | undefined {
    return this.db.first(this.db.kysely.selectFrom('folders').selectAll().where('id', '=', id));
  }

  listOf(inboxId: number): FolderRow[] {
    return this.db.all(this.db.kysely.selectFrom('folders').selectAll().where('inbox_id', '=', inboxId));
  }

  listWithCounts(inboxId: number): FolderWithCounts[] {
    return this.db
      .raw(
        `SELECT f.*, 
           (SELECT count(*) FROM messages m WHERE m.folder_id = f.id) AS total,
           (SELECT count(*) FROM messages m WHERE m.folder_id = f.id AND m.seen = 0) AS unread
         FROM folders f WHERE f.inbox_id = ? ORDER BY f.special_use IS NULL, f.id`,
      )
      .all(inboxId) as FolderWithCounts[];
  }

  create(
    inboxId: number,
    name: string,
    extra: { specialUse?: string | null; remotePath?: string | null } = {},
  ): FolderRow {
    const { lastInsertRowid } = this.db.run(
      this.db.kysely.insertInto('folders').values({
        inbox_id: inboxId,
        name,
        special_use: extra.specialUse ?? null,
        remote_path: extra.remotePath ?? null,
        created_at: nowIso(),
      }),
    );
    return this.get(lastInsertRowid)!;
  }

  remove(id: number): boolean {
    return this.db.run(this.db.kysely.deleteFrom('folders').where('id', '=', id)).changes > 0;
  }

  countMessages(folderId: number): number {
    return (
      this.db.raw('SELECT count(*) AS n FROM messages WHERE folder_id = ?').get(folderId) as { n: number }
    ).n;
  }
}
