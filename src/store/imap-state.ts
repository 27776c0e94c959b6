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

/** What the IMAP sync keeps beside the mail itself: remote paths, UIDs and per-folder progress. */
export class ImapStateStore {
  constructor(private readonly db: Db) {}

  connectedInboxes(): InboxRow[] {
    return this.db.all(
      this.db.kysely.selectFrom('inboxes').selectAll().where('kind', '=', 'imap').orderBy('id'),
    );
  }

  setFolderRemote(folderId: number, remotePath: string | null): void {
    this.db.run(
      this.db.kysely.updateTable('folders').set({ remote_path: remotePath }).where('id', '=', folderId),
    );
  }

  setFolderSync(folderId: number, state: Partial<FolderSyncState>): void {
    this.db.run(this.db.kysely.updateTable('folders').set(state).where('id', '=', folderId));
  }

  links(folderId: number): RemoteLink[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('messages')
        .select(['id', 'remote_uid', 'flags'])
        .where('folder_id', '=', folderId)
        .where('remote_uid', 'is not', null),
    ) as RemoteLink[];
  }

  countLinked(folderId: number): number {
    return (
      this.db
        .raw('SELECT count(*) AS n FROM messages WHERE folder_id = ? AND remote_uid IS NOT NULL')
        .get(folderId) as { n: number }
    ).n;
  }

  byRemoteUid(folderId: number, remoteUid: number): MessageRow | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('messages')
        .selectAll()
        .where('folder_id', '=', folderId)
        .where('remote_uid', '=', remoteUid),
    );
  }

  /** The local copies in this folder not yet tied to a remote UID with this Message-ID. */
  unlinkedByMessageId(folderId: number, messageId: string): MessageRow[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('messages')
        .selectAll()
        .where('folder_id', '=', folderId)
        .where('remote_uid', 'is', null)
        .where('message_id', '=', messageId)
        .orderBy('uid'),
    );
  }

  allIds(folderId: number): number[] {
    return this.db
      .all(this.db.kysely.selectFrom('messages').select('id').where('folder_id', '=', folderId))
      .map((r) => r.id);
  }

  unlinkedIds(folderId: number): number[] {
    return this.db
      .all(
        this.db.kysely
          .selectFrom('messages')
          .select('id')
          .where('folder_id', '=', folderId)
          .where('remote_uid', 'is', null),
      )
      .map((r) => r.id);
  }

  setRemoteUid(messageId: number, remoteUid: number | null): void {
    this.db.run(
      this.db.kysely.updateTable('messages').set({ remote_uid: remoteUid }).where('id', '=', messageId),
    );
  }

  /** After a UIDVALIDITY change every remote UID of the folder is meaningless. */
  unlinkFolder(folderId: number): void {
    this.db.run(
      this.db.kysely
        .updateTable('messages')
        .set({ remote_uid: null })
        .where('folder_id', '=', folderId)
        .where('remote_uid', 'is not', null),
    );
  }
}
