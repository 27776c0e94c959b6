import { createHash } from 'node:crypto';
import type { Store } from '../../store/index.js';
import type { MessageRow } from '../../store/messages.js';

/** What a remote message's envelope says, enough to tell look-alikes apart. */
export interface RemoteEnvelope {
  uid: number;
  messageId: string | undefined;
  size: number | undefined;
  internalDate: Date | string | undefined;
}

/**
 * How many remote messages of the folder look alike, by UID: same Message-ID and size, and
 * same Message-ID, size and internal date. Taken once before a resync, from envelopes only.
 */
export interface RemoteLookalikes {
  bySize: Map<number, number>;
  bySizeAndDate: Map<number, number>;
}

const timeOf = (date: Date | string | undefined) => (date ? new Date(date).getTime() : NaN);

export function lookalikesOf(all: RemoteEnvelope[]): RemoteLookalikes {
  const count = (key: (m: RemoteEnvelope) => string) => {
    const n = new Map<string, number>();
    for (const m of all) n.set(key(m), (n.get(key(m)) ?? 0) + 1);
    return new Map(all.map((m) => [m.uid, n.get(key(m))!]));
  };
  const id = (m: RemoteEnvelope) => `${m.messageId ?? ''}\u0000${m.size}`;
  return { bySize: count(id), bySizeAndDate: count((m) => `${id(m)}\u0000${timeOf(m.internalDate)}`) };
}

const sha256 = (raw: Buffer) => createHash('sha256').update(raw).digest('hex');

/**
 * The unlinked local copy a remote message is, or undefined to import it afresh. After a
 * UIDVALIDITY change (`lookalikes` given) a copy must have the same Message-ID, size and bytes,
 * and the pairing must be one to one: when two local copies or two remote messages fit, the
 * internal date may tell them apart, else nothing is guessed and the remote one is imported
 * (the unmatched local copies are dropped at the end of the resync).
 */
export async function localCopyOf(
  store: Store,
  folder: { inboxId: number; folderId: number },
  remote: { uid: number; messageId: string; source: Buffer; internalDate?: Date | string },
  lookalikes: RemoteLookalikes | null,
): Promise<MessageRow | undefined> {
  const candidates = await store.imapState.unlinkedByMessageId(
    folder.inboxId,
    folder.folderId,
    remote.messageId,
  );
  // Mail this server APPENDed without telling the UID: the oldest copy, as before.
  if (!lookalikes) return candidates[0];
  const hash = sha256(remote.source);
  const locals: MessageRow[] = [];
  for (const l of candidates) {
    if (l.size !== remote.source.length) continue;
    const raw = await store.messages.raw(l.id);
    if (!raw || sha256(raw) === hash) locals.push(l);
  }
  if (locals.length === 1 && lookalikes.bySize.get(remote.uid) === 1) return locals[0];
  const when = timeOf(remote.internalDate);
  const sameDate = locals.filter((l) => Date.parse(l.received_at) === when);
  if (sameDate.length === 1 && lookalikes.bySizeAndDate.get(remote.uid) === 1) return sameDate[0];
  return undefined;
}
