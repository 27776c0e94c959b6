import type { Db } from '../db/connection.js';
import type { InboxRow } from './inboxes.js';
import type { MessageRow } from './messages.js';

/** A local copy's link to its remote message, as the folder sync compares them. */
export interface RemoteLink {
  id: number;
  remote_uid: number;
  flags: string;
}

export interface FolderSyncState {
  uid_validity: number | null;
  highest_modseq: number | null;
  uid_next_seen: number | null;
}

/** The space of the mailbox locks among the database's advisory locks: "mbox" in ASCII. */
const MAILBOX_LOCK_SPACE = 0x6d626f78;

/** What the IMAP sync keeps beside the mail itself: remote paths, UIDs and per-folder progress. */
export class ImapStateStore {
  constructor(private readonly db: Db) {}

  async connectedInboxes(): Promise<InboxRow[]> {
    return await this.db.all(
      this.db.kysely.selectFrom('inboxes').selectAll().where('kind', '=', 'imap').orderBy('id'),
    );
  }

  /**
   * Holds the mailbox of a connected inbox against every node until the answered function is
   * called (Db.holdLock): its remote writes and its sync's filing take turns across nodes.
   */
  holdMailbox(inboxId: number, onWait?: () => void): Promise<() => Promise<void>> {
    return this.db.holdLock(MAILBOX_LOCK_SPACE, inboxId, onWait);
  }

  async setFolderRemote(folderId: number, remotePath: string | null): Promise<void> {
    await this.db.run(
      this.db.kysely.updateTable('folders').set({ remote_path: remotePath }).where('id', '=', folderId),
    );
  }

  async setFolderSync(folderId: number, state: Partial<FolderSyncState>): Promise<void> {
    await this.db.run(this.db.kysely.updateTable('folders').set(state).where('id', '=', folderId));
  }

  async links(folderId: number): Promise<RemoteLink[]> {
    return (await this.db.all(
      this.db.kysely
        .selectFrom('messages')
        .select(['id', 'remote_uid', 'flags'])
        .where('folder_id', '=', folderId)
        .where('remote_uid', 'is not', null),
    )) as RemoteLink[];
  }

  async countLinked(folderId: number): Promise<number> {
    return (
      (await this.db.rawFirst(
        'SELECT count(*) AS n FROM messages WHERE folder_id = ? AND remote_uid IS NOT NULL',
        folderId,
      )) as { n: number }
    ).n;
  }

  async byRemoteUid(folderId: number, remoteUid: number): Promise<MessageRow | undefined> {
    return await this.db.first(
      this.db.kysely
        .selectFrom('messages')
        .selectAll()
        .where('folder_id', '=', folderId)
        .where('remote_uid', '=', remoteUid),
    );
  }

  /** The local copies in this folder not yet tied to a remote UID with this Message-ID, oldest first. */
  async unlinkedByMessageId(inboxId: number, folderId: number, messageId: string): Promise<MessageRow[]> {
    // By (inbox, Message-ID), sorted here: an ORDER BY uid made SQLite walk the whole folder by
    // uid for every message synced (most of an initial sync's time).
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom('messages')
        .selectAll()
        .where('inbox_id', '=', inboxId)
        .where('message_id', '=', messageId)
        .where('folder_id', '=', folderId)
        .where('remote_uid', 'is', null),
    );
    return rows.sort((a, b) => a.uid - b.uid);
  }

  /** Which of these remote UIDs already have a local copy in the folder. */
  async linkedAmong(folderId: number, remoteUids: number[]): Promise<Set<number>> {
    if (remoteUids.length === 0) return new Set();
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom('messages')
        .select('remote_uid')
        .where('folder_id', '=', folderId)
        .where('remote_uid', 'in', remoteUids),
    );
    return new Set(rows.map((r) => r.remote_uid!));
  }

  async allIds(folderId: number): Promise<number[]> {
    return (
      await this.db.all(this.db.kysely.selectFrom('messages').select('id').where('folder_id', '=', folderId))
    ).map((r) => r.id);
  }

  async unlinkedIds(folderId: number): Promise<number[]> {
    return (
      await this.db.all(
        this.db.kysely
          .selectFrom('messages')
          .select('id')
          .where('folder_id', '=', folderId)
          .where('remote_uid', 'is', null),
      )
    ).map((r) => r.id);
  }

  async setRemoteUid(messageId: number, remoteUid: number | null): Promise<void> {
    await this.db.run(
      this.db.kysely.updateTable('messages').set({ remote_uid: remoteUid }).where('id', '=', messageId),
    );
  }

  /** After a UIDVALIDITY change every remote UID of the folder is meaningless. */
  async unlinkFolder(folderId: number): Promise<void> {
    await this.db.run(
      this.db.kysely
        .updateTable('messages')
        .set({ remote_uid: null })
        .where('folder_id', '=', folderId)
        .where('remote_uid', 'is not', null),
    );
  }
}
