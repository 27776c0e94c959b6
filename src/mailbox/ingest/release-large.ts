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

function collector(): () => void {
  if (!collect) {
    // The collector without starting node with --expose-gc: the flag applies to contexts made after it.
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as () => void;
  }
  return collect;
}
