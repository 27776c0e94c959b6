import type { FetchMessageObject, ImapFlow } from 'imapflow';
import { collectNow } from '../mailbox/ingest/release-large.js';
import type { FetchedMessage } from '../mailbox/sync/new-mail.js';
import { uidSet } from './size-batches.js';

/**
 * A message at least this large is downloaded on its own, in pieces, instead of with its batch
 * (see fetchSources). Below it the one FETCH of the whole batch is cheaper.
 */
export const STREAM_FROM_BYTES = 4 * 1024 * 1024;

/** Bytes one FETCH of a streamed download asks for: 25 round trips for a 25 MB message. */
const PIECE_BYTES = 1024 * 1024;

/** A full collection on this thread after each this many bytes downloaded (a few ms each). */
const COLLECT_EVERY = 8 * 1024 * 1024;

/** The messages a FETCH brought, and the UIDs it answered without their source. */
export interface FetchedSources {
  messages: FetchedMessage[];
  unreadable: number[];
}

/**
 * The sources of these messages with their flags and dates, in uid order; a UID missing from
 * both lists was not in the answer (gone from the server). Small ones come in
 * one FETCH (imapflow's fetchAll). A large one would be held there several times at once (the
 * socket's chunks, their concatenation, then a copy for the parse thread): it is downloaded in
 * PIECE_BYTES pieces instead, each written straight into one buffer of its RFC822.SIZE. That
 * buffer is shared memory (a SharedArrayBuffer), so the parse thread reads these same bytes
 * rather than a structured-clone copy of them.
 */
export async function fetchSources(
  client: ImapFlow,
  uids: number[],
  sizeOf: (uid: number) => number,
): Promise<FetchedSources> {
  const large = uids.filter((uid) => sizeOf(uid) >= STREAM_FROM_BYTES);
  const small = uids.filter((uid) => sizeOf(uid) < STREAM_FROM_BYTES);
  const fetched: FetchedMessage[] = [];
  const unreadable: number[] = [];
  if (small.length > 0) {
    const answers: FetchMessageObject[] = await client.fetchAll(
      uidSet(small),
      { uid: true, flags: true, source: true, internalDate: true },
      { uid: true },
    );
    for (const m of answers) {
      if (m.source) fetched.push({ ...m, source: m.source });
      else unreadable.push(m.uid);
    }
  }
  if (large.length > 0) {
    const answers = await client.fetchAll(
      uidSet(large),
      { uid: true, flags: true, internalDate: true },
      { uid: true },
    );
    for (const m of answers) {
      const source = await download(client, m.uid, sizeOf(m.uid));
      if (source) fetched.push({ ...m, source });
      else unreadable.push(m.uid);
    }
  }
  return { messages: fetched.sort((a, b) => a.uid - b.uid), unreadable };
}

/** One message's source, read piece by piece into shared memory; undefined when it is gone. */
async function download(client: ImapFlow, uid: number, expected: number): Promise<Buffer | undefined> {
  const { content } = await client.download(String(uid), undefined, { uid: true, chunkSize: PIECE_BYTES });
  if (!content) return undefined;
  let buffer = sharedBuffer(expected);
  let length = 0;
  for await (const piece of content as AsyncIterable<Buffer>) {
    // RFC822.SIZE is the server's word: a source that turns out longer grows the buffer.
    if (length + piece.length > buffer.length) {
      const larger = sharedBuffer(Math.max(length + piece.length, buffer.length * 2));
      buffer.copy(larger, 0, 0, length);
      buffer = larger;
    }
    piece.copy(buffer, length);
    length += piece.length;
    // Each piece leaves its Buffer (and the socket's chunks) behind; V8 would let ~50 MB pile up.
    if (Math.floor(length / COLLECT_EVERY) > Math.floor((length - piece.length) / COLLECT_EVERY))
      collectNow();
  }
  return buffer.subarray(0, length);
}

const sharedBuffer = (bytes: number) => Buffer.from(new SharedArrayBuffer(Math.max(1, bytes)));
