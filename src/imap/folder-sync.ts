import type { ImapFlow } from 'imapflow';
import type { MailboxDeps } from '../mailbox/deps.js';
import { releaseAfterLarge } from '../mailbox/ingest/release-large.js';
import type { RemoteLookalikes } from '../mailbox/sync/adopt.js';
import { lookalikesOf } from '../mailbox/sync/adopt.js';
import type { ConnectedInbox } from '../mailbox/sync/connected-inboxes.js';
import type { SyncedFolder } from '../mailbox/sync/folder-progress.js';
import { finishFolderSync, startResync, syncedFolder } from '../mailbox/sync/folder-progress.js';
import { fileNewMail, linkedAmong, movedToSpam, remoteSpamOf } from '../mailbox/sync/new-mail.js';
import type { SyncLease } from '../mailbox/sync/new-mail.js';
import { nextUidMark } from '../mailbox/sync/uid-mark.js';
import type { MailboxLock } from './mailbox-lock.js';
import { fetchSources } from './fetch-sources.js';
import { syncExpunges, syncFlags } from './remote-changes.js';
import { batchesBySize, uidSet } from './size-batches.js';

export interface FolderSyncContext {
  deps: MailboxDeps;
  client: ImapFlow;
  inbox: ConnectedInbox;
  lock: MailboxLock;
  batchSize: number;
  /** Only mail since this date on a folder's first sync (MAILROOM_IMAP_INITIAL_DAYS); null for all. */
  initialSince: Date | null;
  /** Fire `email.received` for new INBOX mail (false during the inbox's first sync). */
  announce: boolean;
  /** The lease this node holds on the inbox's sync; filing checks it. */
  fence: SyncLease | null;
}

/**
 * Brings one local folder level with its remote folder: new mail (adopting local copies where
 * the remote UIDs are new, as after a UIDVALIDITY change or an APPEND whose UID the server did
 * not tell: see localCopyOf), flag changes (CONDSTORE when offered, else every flag), and
 * expunges (a UID absent from two answers in a row, never from one).
 *
 * Commands run between fetches, never inside one; local changes are made under the inbox's
 * lock so a remote write in flight is either wholly before or wholly after them.
 */
export async function syncFolder(ctx: FolderSyncContext, folder: SyncedFolder): Promise<void> {
  const { client, deps, lock } = ctx;
  const mailbox = await client.mailboxOpen(folder.remote_path!);
  const uidValidity = Number(mailbox.uidValidity);
  // `mailbox` is imapflow's live state: every FETCH answer raises its uidNext (see nextUidMark).
  const uidNextAtSelect = mailbox.uidNext;
  const known = (await syncedFolder(deps, folder.id))!;
  const first = known.uid_validity === null;
  const resync = !first && known.uid_validity !== uidValidity;
  if (resync) {
    deps.log.warn(
      { account: ctx.inbox.address, folder: folder.name },
      'UIDVALIDITY changed; resyncing folder',
    );
    await lock.run(async () => startResync(deps, folder.id));
  }
  const from = first || resync ? 1 : (known.uid_next_seen ?? 1);

  // New mail.
  let uids: number[] = [];
  if (mailbox.exists > 0) {
    const query = first && ctx.initialSince ? { since: ctx.initialSince } : { uid: `${from}:*` };
    uids = ((await client.search(query, { uid: true })) || []).filter((uid) => uid >= from);
  }
  const announce = ctx.announce && !first && !resync && folder.special_use === '\\Inbox';
  const lookalikes = resync && uids.length > 0 ? await remoteLookalikes(client) : null;
  const sizes = await remoteSizes(client, uids);
  const sizeOf = (uid: number) => sizes.get(uid) ?? 0;
  const settled = new Set<number>();
  for (const batch of batchesBySize(uids, sizeOf, ctx.batchSize, BATCH_BYTES)) {
    const done = await lock.run(() => fetchAndFile(ctx, folder, batch, sizeOf, announce, lookalikes));
    for (const uid of done) settled.add(uid);
  }

  // Flag changes and expunges by other clients.
  await lock.run(async () => {
    if (!first && !resync) await syncFlags(ctx, folder, known.highest_modseq, mailbox.highestModseq);
    await syncExpunges(ctx, folder, mailbox.exists);
    await finishFolderSync(deps, folder.id, resync, {
      uid_validity: uidValidity,
      highest_modseq: mailbox.highestModseq ? Number(mailbox.highestModseq) : null,
      uid_next_seen: nextUidMark({ from, uidNextAtSelect, listed: uids, settled }),
    });
  });
}

/** Bytes of message source one download batch may hold (one larger message goes alone). */
const BATCH_BYTES = 16 * 1024 * 1024;

/** Each new message's size (RFC822.SIZE), asked once for the whole folder before downloading. */
async function remoteSizes(client: ImapFlow, uids: number[]): Promise<Map<number, number>> {
  if (uids.length === 0) return new Map();
  const answers = await client.fetchAll(uidSet(uids), { uid: true, size: true }, { uid: true });
  return new Map(answers.map((m) => [m.uid, m.size ?? 0]));
}

/** The folder's messages that look alike, from every envelope (before a resync adopts copies). */
async function remoteLookalikes(client: ImapFlow): Promise<RemoteLookalikes> {
  const all = await client.fetchAll(
    '1:*',
    { uid: true, size: true, internalDate: true, envelope: true },
    { uid: true },
  );
  return lookalikesOf(
    all.map((m) => ({
      uid: m.uid,
      messageId: m.envelope?.messageId,
      size: m.size,
      internalDate: m.internalDate,
    })),
  );
}

/**
 * Downloads and files the batch's mail not linked yet. Answers the UIDs settled (see nextUidMark):
 * all but those the server answered without a source, which the next pass asks for again.
 */
async function fetchAndFile(
  ctx: FolderSyncContext,
  folder: SyncedFolder,
  uids: number[],
  sizeOf: (uid: number) => number,
  announce: boolean,
  lookalikes: RemoteLookalikes | null,
): Promise<number[]> {
  const { deps, client, inbox } = ctx;
  const linked = await linkedAmong(deps, folder.id, uids);
  const fresh = uids.filter((uid) => !linked.has(uid));
  if (fresh.length === 0) return uids;
  const { messages: fetched, unreadable } = await fetchSources(client, fresh, sizeOf);
  if (unreadable.length > 0) {
    deps.log.warn(
      { account: inbox.address, folder: folder.name, uids: unreadable },
      'the IMAP server answered without the message source; asking again at the next sync',
    );
  }
  const toSpam = await fileNewMail(
    deps,
    { inbox, folder, linked, announce, lookalikes, fence: ctx.fence },
    fetched,
  );
  const spam = toSpam.length > 0 ? await remoteSpamOf(deps, inbox) : undefined;
  if (spam) {
    // The folder being synced is the one selected: the refused mail leaves it on the server too.
    const moved = await client.messageMove(uidSet(toSpam.map((m) => m.remoteUid)), spam.remote_path!, {
      uid: true,
    });
    if (moved) await movedToSpam(deps, toSpam, spam, moved.uidMap ?? null);
    else deps.log.warn({ account: inbox.address }, 'the IMAP server refused to move refused mail to Spam');
  }
  // A large source is shared memory, freed only once this thread and the parse thread's let go.
  releaseAfterLarge(Math.max(0, ...fetched.map((m) => m.source.length)));
  return uids.filter((uid) => !unreadable.includes(uid));
}
