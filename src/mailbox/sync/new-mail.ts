import { isAutomatic } from '../../mail/automatic.js';
import type { EventRow } from '../../store/events.js';
import type { FolderRow } from '../../store/folders.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';
import { appendEmailEvent, fileMessage, viewOfFiled } from '../ingest/file-message.js';
import { fromFilesAsSpam, receiveListsOf } from '../policy/receive-check.js';
import type { RemoteLookalikes } from './adopt.js';
import { localCopyOf } from './adopt.js';
import { normalFlags, sameFlags } from './remote-flags.js';

/** Folders of the mailbox's own mail: what is there was not received, so it is never an autoReply. */
const OWN_MAIL = new Set(['\\Sent', '\\Drafts']);

/** A remote message as downloaded: its source with its flags and internal date. */
export interface FetchedMessage {
  uid: number;
  flags?: Set<string>;
  internalDate?: Date | string;
  source: Buffer;
}

/** Which of these remote UIDs already have a local copy in the folder. */
export function linkedAmong(deps: MailboxDeps, folderId: number, remoteUids: number[]): Promise<Set<number>> {
  return deps.store.imapState.linkedAmong(folderId, remoteUids);
}

export interface NewMailBatch {
  inbox: InboxRow;
  folder: FolderRow;
  /** The remote UIDs linked already (linkedAmong): not filed again, nor twice from one batch. */
  linked: Set<number>;
  /** Fire `email.received` for what is filed (new INBOX mail after the inbox's first sync). */
  announce: boolean;
  /** Set during a resync after a UIDVALIDITY change (see localCopyOf). */
  lookalikes: RemoteLookalikes | null;
  /** The lease this node syncs the inbox under (contract 11): nothing is filed once it is lost. */
  fence: SyncLease | null;
}

/** A lease held on the sync of an inbox: its name and the claim it was taken under. */
export interface SyncLease {
  name: string;
  claimId: string;
}

/** A message filed into INBOX that the receive lists send to Spam: its row and remote UID. */
export interface SpamMove {
  id: number;
  remoteUid: number;
}

/**
 * Files a batch of downloaded messages: a message that is a local copy already (adopted, as
 * after a UIDVALIDITY change or an APPEND whose UID the server did not tell) is linked to its
 * remote UID and takes its flags; any other is filed afresh, as SMTP files mail. One transaction
 * for the batch, its events published after it commits, and only while the batch's lease holds.
 * Answers the new INBOX mail whose header From the inbox's receive lists refuse: the adapter
 * moves it to Spam on the server, then movedToSpam here (contract 14: synced mail is filed by the
 * same rule).
 */
export async function fileNewMail(
  deps: MailboxDeps,
  batch: NewMailBatch,
  fetched: FetchedMessage[],
): Promise<SpamMove[]> {
  const { store } = deps;
  const { inbox, folder, linked } = batch;
  const lists = folder.special_use === '\\Inbox' ? await receiveListsOf(deps, inbox) : [];
  const toSpam: SpamMove[] = [];
  // All at once: large ones go to the parse threads side by side (the batch is bounded in bytes).
  const parsed = await Promise.all(
    fetched
      .filter((message) => !linked.has(message.uid) && linked.add(message.uid))
      .map(async (message) => ({ message, parsed: await deps.parser.parse(message.source) })),
  );
  const events: EventRow[] = [];
  await store.db.transaction(async () => {
    // Fencing: a node that lost the inbox to another (it stalled past its lease) files nothing;
    // on PostgreSQL the lease row stays locked until this commits, so it cannot change hands meanwhile.
    if (batch.fence && !(await store.nodes.holds(batch.fence.name, batch.fence.claimId))) {
      throw new Error('this node no longer holds the sync of this inbox');
    }
    // Linked meanwhile (another node's sync, a move's link committed since `linked` was read):
    // not filed twice nor announced twice. The unique (folder, remote UID) index is the backstop.
    const already = await store.imapState.linkedAmong(
      folder.id,
      parsed.map(({ message }) => message.uid),
    );
    const fresh = parsed.filter(({ message }) => !already.has(message.uid));
    if (fresh.length === 0) return;
    // One uid update for the batch (it was a tenth of a sync's time); adopted copies leave gaps.
    let uid = await store.inboxes.allocateUids(inbox.id, fresh.length);
    for (const { message, parsed: email } of fresh) {
      const flags = normalFlags(message.flags);
      const adopted = await localCopyOf(
        store,
        { inboxId: inbox.id, folderId: folder.id },
        { ...message, messageId: email.messageId },
        batch.lookalikes,
      );
      if (adopted) {
        await store.imapState.setRemoteUid(adopted.id, message.uid);
        if (!sameFlags(adopted.flags, flags)) await store.messages.setFlags(adopted.id, flags);
        continue;
      }
      const date = message.internalDate;
      const row = await fileMessage(store, {
        inbox,
        folder,
        parsed: email,
        raw: message.source,
        flags,
        receivedAt: date instanceof Date ? date : date ? new Date(date) : new Date(),
        autoReply: !OWN_MAIL.has(folder.special_use ?? '') && isAutomatic(email.headers),
        uid: uid++,
      });
      await store.imapState.setRemoteUid(row.id, message.uid);
      if (fromFilesAsSpam(lists, inbox, email.from?.address))
        toSpam.push({ id: row.id, remoteUid: message.uid });
      if (batch.announce) {
        events.push(
          await appendEmailEvent(store, 'email.received', inbox, row, viewOfFiled(row, folder, email, false)),
        );
      }
    }
  });
  deps.bus.publish(events);
  return toSpam;
}

/** The Spam folder of a connected inbox, when the server has one the sync mapped. */
export async function remoteSpamOf(deps: MailboxDeps, inbox: InboxRow): Promise<FolderRow | undefined> {
  const spam = await deps.store.folders.findBySpecialUse(inbox.id, '\\Junk');
  return spam?.remote_path ? spam : undefined;
}

/**
 * The local side of moving `moves` to Spam on the server: each row goes to Spam with the UID the
 * server gave it there (null when it did not say: the next sync of Spam adopts the copy).
 */
export async function movedToSpam(
  deps: MailboxDeps,
  moves: SpamMove[],
  spam: FolderRow,
  uidMap: Map<number, number> | null,
): Promise<void> {
  await deps.store.db.transaction(async () => {
    for (const move of moves) {
      await deps.store.messages.moveTo(move.id, spam.id, null);
      await deps.store.imapState.setRemoteUid(move.id, uidMap?.get(move.remoteUid) ?? null);
    }
  });
}
