import v8 from 'node:v8';
import vm from 'node:vm';

/** Below this a message's garbage is ordinary; above it, it is worth collecting at once. */
export const LARGE_MESSAGE_BYTES = 4 * 1024 * 1024;
const MIN_INTERVAL_MS = 500;

let collect: (() => void) | null = null;
let last = 0;
let pending = false;

/**
 * After a large message, runs a full collection on this thread once the current work is done.
 * V8 counts a Buffer's bytes only loosely towards its next collection, so the tens of megabytes
 * a large message leaves behind (its copies, the parser's chunks) otherwise linger in each
 * thread until unrelated allocation triggers one: measured, RSS stayed ~300 MB above idle.
 * At most one collection per half second per thread; ordinary mail never triggers it.
 */
export function releaseAfterLarge(bytes: number): void {
  if (bytes < LARGE_MESSAGE_BYTES || pending) return;
  pending = true;
  const run = () => {
    pending = false;
    last = Date.now();
    collector()();
  };
  const wait = Math.max(0, last + MIN_INTERVAL_MS - Date.now());
  setTimeout(run, wait).unref();
}

/**
 * A full collection on this thread now, for a loop that makes garbage faster than V8 counts it:
 * a streamed download of a large message leaves a megabyte Buffer behind at each piece.
 */
export function collectNow(): void {
  last = Date.now();
  collector()();
}

/**
 * Two full collections for a thread gone quiet: an ordinary one, which gives back the young
 * generation grown under load (32 MB on the main thread), then one that compacts the old
 * generation. An ordinary collection frees objects but keeps each page any survivor is on (a
 * server quiet after 100,000 messages kept 41 MB of old generation for 29 MB of live objects;
 * compacted, 30 MB). Compacting first, the copies' new pages came on top of the young
 * generation still held: the process's peak rose by ~30 MB. V8 decides per collection whether to
 * compact; the flag is set for the second one only.
 */
export function collectAndCompact(): void {
  collectNow();
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    collectNow();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

function collector(): () => void {
  if (!collect) {
    // The collector without starting node with --expose-gc: the flag applies to contexts made after it.
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as () => void;
  }
  return collect;
}
