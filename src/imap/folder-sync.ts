import type { FetchMessageObject, ImapFlow } from 'imapflow';
import type { MailboxDeps } from '../mailbox/deps.js';
import { parseInbound } from '../mailbox/ingest/parse-message.js';
import { releaseAfterLarge } from '../mailbox/ingest/release-large.js';
import { appendEmailEvent, fileMessage, viewOfFiled } from '../mailbox/ingest/file-message.js';
import type { EventRow } from '../store/events.js';
import type { FolderRow } from '../store/folders.js';
import type { InboxRow } from '../store/inboxes.js';
import type { RemoteLookalikes } from './adopt.js';
import { localCopyOf, remoteLookalikes } from './adopt.js';
import type { Mutex } from './mutex.js';
import { fetchSources } from './fetch-sources.js';
import { batchesBySize, uidSet } from './size-batches.js';

export interface FolderSyncContext {
  deps: MailboxDeps;
  client: ImapFlow;
  inbox: InboxRow;
  lock: Mutex;
  batchSize: number;
  /** Only mail since this date on a folder's first sync (MAILROOM_IMAP_INITIAL_DAYS); null for all. */
  initialSince: Date | null;
  /** Fire `email.received` for new INBOX mail (false during the inbox's first sync). */
  announce: boolean;
}

/** Flags as stored: the session-only \Recent dropped, sorted so two sets compare as strings. */
export function normalFlags(flags: Iterable<string> | undefined): string[] {
  return [...(flags ?? [])].filter((f) => f.toLowerCase() !== '\\recent').sort();
}

const sameFlags = (stored: string, remote: string[]) =>
  JSON.stringify(normalFlags(JSON.parse(stored) as string[])) === JSON.stringify(remote);

/**
 * Brings one local folder level with its remote folder: new mail (adopting local copies where
 * the remote UIDs are new, as after a UIDVALIDITY change or an APPEND whose UID the server did
 * not tell: see localCopyOf), flag changes (CONDSTORE when offered, else every flag), and
 * expunges (a UID absent from two answers in a row, never from one).
 *
 * Commands run between fetches, never inside one; local changes are made under the inbox's
 * lock so a remote write in flight is either wholly before or wholly after them.
 */
export async function syncFolder(ctx: FolderSyncContext, folder: FolderRow): Promise<void> {
  const { client, deps, lock } = ctx;
  const { store } = deps;
  const mailbox = await client.mailboxOpen(folder.remote_path!);
  const uidValidity = Number(mailbox.uidValidity);
  const known = (await store.folders.get(folder.id))!;
  const first = known.uid_validity === null;
  const resync = !first && known.uid_validity !== uidValidity;
  if (resync) {
    deps.log.warn(
      { account: ctx.inbox.address, folder: folder.name },
      'UIDVALIDITY changed; resyncing folder',
    );
    await lock.run(async () => store.imapState.unlinkFolder(folder.id));
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
  for (const batch of batchesBySize(uids, sizeOf, ctx.batchSize, BATCH_BYTES)) {
    await lock.run(() => fetchAndFile(ctx, folder, batch, sizeOf, announce, lookalikes));
  }

  // Flag changes and expunges by other clients.
  await lock.run(async () => {
    if (!first && !resync) await syncFlags(ctx, folder, known.highest_modseq, mailbox.highestModseq);
    await syncExpunges(ctx, folder, mailbox.exists);
    if (resync)
      for (const id of await store.imapState.unlinkedIds(folder.id)) await store.messages.remove(id);
    await store.imapState.setFolderSync(folder.id, {
      uid_validity: uidValidity,
      highest_modseq: mailbox.highestModseq ? Number(mailbox.highestModseq) : null,
      uid_next_seen: mailbox.uidNext ?? Math.max(from, ...uids.map((u) => u + 1)),
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

async function fetchAndFile(
  ctx: FolderSyncContext,
  folder: FolderRow,
  uids: number[],
  sizeOf: (uid: number) => number,
  announce: boolean,
  lookalikes: RemoteLookalikes | null,
): Promise<void> {
  const { deps, client, inbox } = ctx;
  const { store } = deps;
  const linked = await store.imapState.linkedAmong(folder.id, uids);
  const fresh = uids.filter((uid) => !linked.has(uid));
  if (fresh.length === 0) return;
  const fetched = await fetchSources(client, fresh, sizeOf);
  // All at once: large ones go to the parse threads side by side (the batch is bounded in bytes).
  const parsed = await Promise.all(
    fetched
      .filter((message) => !linked.has(message.uid) && linked.add(message.uid))
      .map(async (message) => ({ message, parsed: await parseInbound(deps, message.source) })),
  );
  const events: EventRow[] = [];
  await store.db.transaction(async () => {
    // One uid update for the batch (it was a tenth of a sync's time); adopted copies leave gaps.
    let uid = await store.inboxes.allocateUids(inbox.id, parsed.length);
    for (const { message, parsed: email } of parsed) {
      const flags = normalFlags(message.flags);
      const adopted = await localCopyOf(
        store,
        { inboxId: inbox.id, folderId: folder.id },
        { ...message, messageId: email.messageId },
        lookalikes,
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
        uid: uid++,
      });
      await store.imapState.setRemoteUid(row.id, message.uid);
      if (announce) {
        events.push(
          await appendEmailEvent(store, 'email.received', inbox, row, viewOfFiled(row, folder, email, false)),
        );
      }
    }
  });
  deps.bus.publish(events);
  // A large source is shared memory, freed only once this thread and the parse thread's let go.
  releaseAfterLarge(Math.max(0, ...fetched.map((m) => m.source.length)));
}

async function syncFlags(
  ctx: FolderSyncContext,
  folder: FolderRow,
  knownModseq: number | null,
  highestModseq: bigint | undefined,
): Promise<void> {
  const { client, deps } = ctx;
  if (!client.mailbox || client.mailbox.exists === 0) return;
  let changed: FetchMessageObject[];
  if (knownModseq !== null && highestModseq !== undefined) {
    if (highestModseq <= BigInt(knownModseq)) return;
    changed = await client.fetchAll(
      '1:*',
      { uid: true, flags: true },
      { uid: true, changedSince: knownModseq },
    );
  } else {
    changed = await client.fetchAll('1:*', { uid: true, flags: true }, { uid: true });
  }
  const byUid = new Map((await deps.store.imapState.links(folder.id)).map((l) => [l.remote_uid, l]));
  await deps.store.db.transaction(async () => {
    for (const message of changed) {
      const link = byUid.get(message.uid);
      const flags = normalFlags(message.flags);
      if (link && !sameFlags(link.flags, flags)) await deps.store.messages.setFlags(link.id, flags);
    }
  });
}

async function syncExpunges(
  ctx: FolderSyncContext,
  folder: FolderRow,
  existsAtSelect: number,
): Promise<void> {
  const { client, deps } = ctx;
  const { store } = deps;
  const exists = client.mailbox ? client.mailbox.exists : existsAtSelect;
  if ((await store.imapState.countLinked(folder.id)) === exists) return;
  const all = await client.search({ all: true }, { uid: true });
  if (all === false || all === undefined) return;
  if (all.length === 0 && exists > 0) return;
  const present = new Set(all);
  const missing = (await store.imapState.links(folder.id)).filter((l) => !present.has(l.remote_uid));
  if (missing.length === 0) return;
  // A UID missing from one answer is not proof: ask again about exactly those.
  const again = await client.search({ uid: missing.map((l) => l.remote_uid).join(',') }, { uid: true });
  if (again === false || again === undefined) return;
  const still = new Set(again);
  await store.db.transaction(async () => {
    for (const link of missing) if (!still.has(link.remote_uid)) await store.messages.remove(link.id);
  });
}
