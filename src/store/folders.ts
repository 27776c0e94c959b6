import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { FoldersTable } from '../db/schema.js';
import { nowIso } from './ids.js';
import type { InboxRow } from './inboxes.js';

export type FolderRow = Selectable<FoldersTable>;
export type FolderWithCounts = FolderRow & { total: number; unread: number };

/** Every column of folders (the compiler checks the list is whole), read beside an inbox's. */
const FOLDER_COLUMNS = Object.keys({
  id: true,
  inbox_id: true,
  name: true,
  special_use: true,
  remote_path: true,
  uid_validity: true,
  created_at: true,
  highest_modseq: true,
  uid_next_seen: true,
} satisfies Record<keyof FoldersTable, true>);

export class FolderStore {
  constructor(private readonly db: Db) {}

  /** Case-insensitive; runs for every inbound message, so a plain prepared statement. */
  async find(inboxId: number, name: string): Promise<FolderRow | undefined> {
    return (await this.db.rawFirst(
      'SELECT * FROM folders WHERE inbox_id = ? AND lower(name) = ?',
      inboxId,
      name.toLowerCase(),
    )) as FolderRow | undefined;
  }

  /**
   * The inbox at `address` and its folder named `name` (as `find` matches it) in one query: a
   * page of mail asks for both, and on PostgreSQL each query is a round trip.
   */
  async findWithInbox(
    address: string,
    name: string,
  ): Promise<{ inbox: InboxRow; folder: FolderRow | undefined } | undefined> {
    const row = await this.db.rawFirst<Record<string, unknown>>(
      `SELECT i.*, ${FOLDER_COLUMNS.map((c) => `f.${c} AS "folder.${c}"`).join(', ')}
         FROM inboxes i LEFT JOIN folders f ON f.inbox_id = i.id AND lower(f.name) = ?
         WHERE i.address = ?`,
      name.toLowerCase(),
      address.toLowerCase(),
    );
    if (!row) return undefined;
    const inbox: Record<string, unknown> = {};
    const folder: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(row)) {
      if (column.startsWith('folder.')) folder[column.slice('folder.'.length)] = value;
      else inbox[column] = value;
    }
    return {
      inbox: inbox as InboxRow,
      folder: folder.id === null ? undefined : (folder as FolderRow),
    };
  }

  async findBySpecialUse(inboxId: number, specialUse: string): Promise<FolderRow | undefined> {
    return await this.db.first(
      this.db.kysely
        .selectFrom('folders')
        .selectAll()
        .where('inbox_id', '=', inboxId)
        .where('special_use', '=', specialUse),
    );
  }

  async get(id: number): Promise<FolderRow | undefined> {
    return await this.db.first(this.db.kysely.selectFrom('folders').selectAll().where('id', '=', id));
  }

  async listOf(inboxId: number): Promise<FolderRow[]> {
    return await this.db.all(
      this.db.kysely.selectFrom('folders').selectAll().where('inbox_id', '=', inboxId),
    );
  }

  async listWithCounts(inboxId: number): Promise<FolderWithCounts[]> {
    return (await this.db.rawAll(
      `SELECT f.*, 
           (SELECT count(*) FROM messages m WHERE m.folder_id = f.id) AS total,
           (SELECT count(*) FROM messages m WHERE m.folder_id = f.id AND m.seen = 0) AS unread
         FROM folders f WHERE f.inbox_id = ? ORDER BY f.special_use IS NULL, f.id`,
      inboxId,
    )) as FolderWithCounts[];
  }

  async create(
    inboxId: number,
    name: string,
    extra: { specialUse?: string | null; remotePath?: string | null } = {},
  ): Promise<FolderRow> {
    const { lastInsertRowid } = await this.db.run(
      this.db.kysely.insertInto('folders').values({
        inbox_id: inboxId,
        name,
        special_use: extra.specialUse ?? null,
        remote_path: extra.remotePath ?? null,
        created_at: nowIso(),
      }),
    );
    return (await this.get(lastInsertRowid))!;
  }

  async remove(id: number): Promise<boolean> {
    return (await this.db.run(this.db.kysely.deleteFrom('folders').where('id', '=', id))).changes > 0;
  }

  async countMessages(folderId: number): Promise<number> {
    return (
      (await this.db.rawFirst('SELECT count(*) AS n FROM messages WHERE folder_id = ?', folderId)) as {
        n: number;
      }
    ).n;
  }
}
