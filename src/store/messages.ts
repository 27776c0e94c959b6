import { sql } from 'kysely';
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { SearchFields } from '../db/dialect.js';
import { fillEventBody } from './event-bodies.js';
import type { MessageBody, PackedSource } from './message-sources.js';
import { readBodies, readSource, removeIfUnused, writeSource } from './message-sources.js';
import type { AttachmentsTable, MessagesTable } from '../db/schema.js';

export type MessageRow = Selectable<MessagesTable>;
export type NewMessage = Omit<Insertable<MessagesTable>, 'id'>;
export type AttachmentRow = Selectable<AttachmentsTable>;
export type LabelRef = { id: string; name: string; color: string };

/** Columns a list needs: every column of the row (the text and html are not among them). */
const LIST_COLUMNS = [
  'id',
  'inbox_id',
  'uid',
  'folder_id',
  'thread_id',
  'message_id',
  'in_reply_to',
  'refs',
  'from_address',
  'from_name',
  'to_addrs',
  'cc_addrs',
  'bcc_addrs',
  'reply_to',
  'subject',
  'date',
  'received_at',
  'size',
  'has_attachments',
  'flags',
  'seen',
  'auth_results',
  'delivery',
  'remote_uid',
  'trashed_at',
  'address_totals',
  'preview',
  'list_extracted_text',
  'source_id',
  'list_text',
  'spam',
  'screening',
  'auto_reply',
  'rejected_reason',
] as const;

/**
 * Whether a listed row has attachment rows (inline ones too, which `has_attachments` leaves out)
 * and labels: an index probe each, so that a page whose rows have none skips the statements that
 * would fetch them (on PostgreSQL a round trip on two connections). 1 or 0 on both engines.
 */
const HAS_ATTACHMENT_ROWS = sql<number>`CASE WHEN EXISTS (SELECT 1 FROM attachments a WHERE a.message_id = messages.id) THEN 1 ELSE 0 END`;
const HAS_LABELS = sql<number>`CASE WHEN EXISTS (SELECT 1 FROM message_labels ml WHERE ml.message_id = messages.id) THEN 1 ELSE 0 END`;

/** A message as a list reads it, and whether it has attachment rows and labels to fetch. */
export type ListedMessageRow = MessageRow & { has_attachment_rows: number; has_labels: number };

/** A message with its text and html, as a full read shows it. */
export type MessageWithBody = MessageRow & MessageBody;

export interface MessageFilter {
  inboxId: number;
  /** One of inboxId's folders (it stands for the inbox in the statement). */
  folderId?: number;
  unread?: boolean;
  from?: string;
  to?: string;
  subject?: string;
  since?: string;
  before?: string;
  hasAttachments?: boolean;
  threadId?: string;
  labelId?: string;
  /** Full-text search: every word must appear, the last as a prefix (letters and digits only). */
  words?: string[];
  /** Only uids below this one (cursor). */
  beforeUid?: number;
  /** Only uids above this one: mail that arrived after a known point. */
  afterUid?: number;
  limit: number;
}

/** What a message's filing writes last: its full-text index row. */
interface IndexRow {
  id: number;
  fields: SearchFields;
}

export class MessageStore {
  constructor(private readonly db: Db) {}

  /**
   * Stores a message: its row pointing at `source`, either a packed source written now (the
   * first copy a delivery files) or the id of one already written in this transaction (the
   * delivery's other copies: one source for every local inbox it reached). Answers the row's
   * id and its source's.
   */
  async insert(
    row: Omit<NewMessage, 'source_id'>,
    source: PackedSource | number,
    attachments: Omit<AttachmentRow, 'message_id'>[],
    fts: SearchFields,
  ): Promise<{ id: number; sourceId: number }> {
    // On PostgreSQL the rows of a group commit's messages go in one statement per table, the
    // sources' ahead of the messages' (queued first).
    const sourceId = typeof source === 'number' ? source : await writeSource(this.db, source);
    const id = await this.db.insertSoon('messages', { ...row, source_id: sourceId });
    for (const a of attachments) {
      await this.db.insertSoon('attachments', { ...a, message_id: id });
    }
    // The index row is read by nobody before the commit: on PostgreSQL it is written just before
    // it, with those of the other messages of the transaction (a group commit's), in one statement.
    const rest = { id, fields: fts };
    if (!this.db.writeAtCommit(this.writeQueued, rest)) await this.index([rest]);
    return { id, sourceId };
  }

  private readonly writeQueued = async (messages: IndexRow[]): Promise<void> => {
    // A message filed and removed again in the same transaction has nothing left to index.
    const ids = messages.map((m) => m.id);
    const kept = await this.db.all(this.db.kysely.selectFrom('messages').select('id').where('id', 'in', ids));
    const stored = new Set(kept.map((k) => k.id));
    await this.index(messages.filter((m) => stored.has(m.id)));
  };

  /** Indexes messages for full-text search as this engine does it (see Dialect.searchIndexRow). */
  async index(messages: { id: number; fields: SearchFields }[]): Promise<void> {
    if (messages.length === 0) return;
    const rows = messages.map((m) => this.db.dialect.searchIndexRow(m.id, m.fields));
    const columns = Object.keys(rows[0]!);
    const values = rows.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
    await this.db.rawRun(
      `INSERT INTO messages_fts (${columns.join(', ')}) VALUES ${values}`,
      ...rows.flatMap((row) => Object.values(row)),
    );
  }

  /** Indexes these messages again (their index rows are replaced). */
  async reindex(messages: { id: number; fields: SearchFields }[]): Promise<void> {
    if (messages.length === 0) return;
    const ids = messages.map((m) => m.id);
    await this.db.rawRun(
      `DELETE FROM messages_fts WHERE rowid IN (${ids.map(() => '?').join(', ')})`,
      ...ids,
    );
    await this.index(messages);
  }

  async getByUid(inboxId: number, uid: number): Promise<MessageRow | undefined> {
    return await this.db.first(
      this.db.kysely
        .selectFrom('messages')
        .selectAll()
        .where('inbox_id', '=', inboxId)
        .where('uid', '=', uid),
    );
  }

  /**
   * The row as it is now, held until the caller's transaction commits, for a change that reads
   * it to write it back (flags): two such changes to one email must not both read the old value.
   */
  async getForUpdate(id: number): Promise<MessageRow | undefined> {
    const q = this.db.kysely.selectFrom('messages').selectAll().where('id', '=', id);
    return await this.db.first(this.db.dialect.rowLocks ? q.forUpdate() : q);
  }

  async get(id: number): Promise<MessageRow | undefined> {
    return await this.db.first(this.db.kysely.selectFrom('messages').selectAll().where('id', '=', id));
  }

  async list(filter: MessageFilter): Promise<ListedMessageRow[]> {
    const likeOp = sql.raw(this.db.dialect.likeIgnoringCase);
    let q = this.db.kysely
      .selectFrom('messages')
      .select([...LIST_COLUMNS, HAS_ATTACHMENT_ROWS.as('has_attachment_rows'), HAS_LABELS.as('has_labels')]);
    // A folder is one inbox's: named alone, so that the engine walks the folder's (folder_id, uid)
    // index. Beside inbox_id, SQLite (which keeps no statistics) walked the inbox's (inbox_id, uid)
    // instead for some filters: a page of unread Drafts read every message of a large inbox.
    q =
      filter.folderId !== undefined
        ? q.where('folder_id', '=', filter.folderId)
        : q.where('inbox_id', '=', filter.inboxId);
    if (filter.unread !== undefined) q = q.where('seen', '=', filter.unread ? 0 : 1);
    if (filter.from) {
      const like = likePattern(filter.from);
      q = q.where(
        sql<boolean>`(from_address ${likeOp} ${like} ESCAPE '\\' OR from_name ${likeOp} ${like} ESCAPE '\\')`,
      );
    }
    if (filter.to) {
      const like = likePattern(filter.to);
      q = q.where(
        sql<boolean>`(to_addrs ${likeOp} ${like} ESCAPE '\\' OR cc_addrs ${likeOp} ${like} ESCAPE '\\')`,
      );
    }
    if (filter.subject)
      q = q.where(sql<boolean>`subject ${likeOp} ${likePattern(filter.subject)} ESCAPE '\\'`);
    // By arrival (IMAP's INTERNALDATE for synced mail), as IMAP's SEARCH SINCE/BEFORE: a sender's
    // clock, which writes the Date header, must not hide mail from a wait `since` its trigger.
    if (filter.since) q = q.where('received_at', '>=', filter.since);
    if (filter.before) q = q.where('received_at', '<', filter.before);
    if (filter.hasAttachments !== undefined)
      q = q.where('has_attachments', '=', filter.hasAttachments ? 1 : 0);
    if (filter.threadId) q = q.where('thread_id', '=', filter.threadId);
    if (filter.labelId) {
      q = q.where(
        sql<boolean>`id IN (SELECT message_id FROM message_labels WHERE label_id = ${filter.labelId})`,
      );
    }
    if (filter.words) q = q.where(this.db.dialect.fullTextMatch(filter.words));
    if (filter.beforeUid !== undefined) q = q.where('uid', '<', filter.beforeUid);
    if (filter.afterUid !== undefined) q = q.where('uid', '>', filter.afterUid);
    return await this.db.all(q.orderBy('uid', 'desc').limit(filter.limit));
  }

  async attachmentsOf(messageIds: number[]): Promise<Map<number, AttachmentRow[]>> {
    const out = new Map<number, AttachmentRow[]>();
    if (messageIds.length === 0) return out;
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom('attachments')
        .selectAll()
        .where('message_id', 'in', messageIds)
        .orderBy('attachment_id'),
    );
    for (const row of rows) {
      const list = out.get(row.message_id) ?? [];
      list.push(row);
      out.set(row.message_id, list);
    }
    return out;
  }

  async labelsOf(messageIds: number[]): Promise<Map<number, LabelRef[]>> {
    const out = new Map<number, LabelRef[]>();
    if (messageIds.length === 0) return out;
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom('message_labels as ml')
        .innerJoin('labels as l', 'l.id', 'ml.label_id')
        .select(['ml.message_id', 'l.id', 'l.name', 'l.color'])
        .where('ml.message_id', 'in', messageIds)
        .orderBy('l.name'),
    );
    for (const { message_id, ...label } of rows) {
      const list = out.get(message_id) ?? [];
      list.push(label);
      out.set(message_id, list);
    }
    return out;
  }

  /** The whole source, put together from its pieces (message-sources.ts). */
  async raw(id: number): Promise<Buffer | undefined> {
    return await readSource(this.db, id);
  }

  /** The text and html of these messages, by id. */
  async bodies(ids: number[]): Promise<Map<number, MessageBody>> {
    return await readBodies(this.db, ids);
  }

  async setFlags(id: number, flags: string[]): Promise<void> {
    await this.db.run(
      this.db.kysely
        .updateTable('messages')
        .set({ flags: JSON.stringify(flags), seen: flags.includes('\\Seen') ? 1 : 0 })
        .where('id', '=', id),
    );
  }

  /** Why a send that did not go is back in Drafts (contract 15's rejectedReason). */
  async setRejectedReason(id: number, reason: string | null): Promise<void> {
    await this.db.run(
      this.db.kysely.updateTable('messages').set({ rejected_reason: reason }).where('id', '=', id),
    );
  }

  /**
   * Moves to another folder, recording when it entered Trash (null when it leaves). A remote UID
   * is one folder's: the row arrives unlinked (the caller links it to the UID the server gave it
   * there, keeping the old one in hand for the remote write), so (folder, remote UID) stays unique.
   */
  async moveTo(id: number, folderId: number, trashedAt: string | null): Promise<void> {
    await this.db.run(
      this.db.kysely
        .updateTable('messages')
        .set({ folder_id: folderId, trashed_at: trashedAt, remote_uid: null })
        .where('id', '=', id),
    );
  }

  /** Every message of a folder (id, uid and the remote UID of a connected inbox's copy), oldest uid first. */
  async allInFolder(folderId: number): Promise<Pick<MessageRow, 'id' | 'uid' | 'remote_uid'>[]> {
    return this.db.all(
      this.db.kysely
        .selectFrom('messages')
        .select(['id', 'uid', 'remote_uid'])
        .where('folder_id', '=', folderId)
        .orderBy('uid'),
    );
  }

  /** Moves every message of one folder into another, unlinked as moveTo; returns how many moved. */
  async moveAll(fromFolderId: number, toFolderId: number, trashedAt: string | null): Promise<number> {
    return (
      await this.db.run(
        this.db.kysely
          .updateTable('messages')
          .set({ folder_id: toFolderId, trashed_at: trashedAt, remote_uid: null })
          .where('folder_id', '=', fromFolderId),
      )
    ).changes;
  }

  /**
   * Messages in the Trash of local inboxes that entered it before `cutoff` (by trashed_at,
   * else received_at for mail that reached Trash without a move). IMAP inboxes are left to
   * their own server.
   */
  async trashedBefore(cutoff: string, limit: number): Promise<number[]> {
    return (
      (await this.db.rawAll(
        `SELECT m.id FROM messages m
           JOIN folders f ON f.id = m.folder_id AND f.special_use = '\\Trash'
           JOIN inboxes i ON i.id = m.inbox_id AND i.kind = 'local'
           WHERE coalesce(m.trashed_at, m.received_at) < ?
           LIMIT ?`,
        cutoff,
        limit,
      )) as { id: number }[]
    ).map((r) => r.id);
  }

  /**
   * Deletes the message for good: attachments, labels and index entries go with it, and its
   * source when no other copy shares it. Events that read their email's text and html from it
   * get their own copy first.
   */
  async remove(id: number): Promise<void> {
    const events = (await this.db.rawAll('SELECT seq, payload FROM events WHERE body_of = ?', id)) as {
      seq: number;
      payload: string;
    }[];
    for (const event of events) {
      await this.db.rawRun(
        'UPDATE events SET payload = ?, body_of = NULL WHERE seq = ?',
        await fillEventBody(this.db, event.payload, id),
        event.seq,
      );
    }
    const row = await this.db.first(
      this.db.kysely.selectFrom('messages').select('source_id').where('id', '=', id),
    );
    await this.db.rawRun('DELETE FROM messages_fts WHERE rowid = ?', id);
    await this.db.run(this.db.kysely.deleteFrom('messages').where('id', '=', id));
    if (row) await removeIfUnused(this.db, row.source_id);
  }

  /** The thread of the newest message in this inbox carrying one of these Message-IDs. */
  async threadOfMessageId(inboxId: number, messageId: string): Promise<string | undefined> {
    const query = this.db.kysely
      .selectFrom('messages')
      .select('thread_id')
      .where('inbox_id', '=', inboxId)
      .where('message_id', '=', messageId)
      .orderBy('uid', 'desc')
      .limit(1);
    const couldSee = (table: string, row: Record<string, unknown>) =>
      table === 'messages' && row.inbox_id === inboxId && row.message_id === messageId;
    return (await this.db.readPast(couldSee, () => this.db.first(query)))?.thread_id;
  }

  async idsInFolderOlderThan(folderId: number, receivedBefore: string, limit: number): Promise<number[]> {
    return (
      await this.db.all(
        this.db.kysely
          .selectFrom('messages')
          .select('id')
          .where('folder_id', '=', folderId)
          .where('received_at', '<', receivedBefore)
          .limit(limit),
      )
    ).map((r) => r.id);
  }
}

function likePattern(value: string): string {
  return `%${value.replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
}
