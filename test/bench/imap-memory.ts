/**
 * By hand: where an IMAP initial sync's memory goes (issue 17, finding 5).
 *   npx tsx --expose-gc test/bench/imap-memory.ts small [messages=20000]
 *   npx tsx --expose-gc test/bench/imap-memory.ts large [count=30] [megabytes=25]
 * Runs the IMAP bench's world (Dovecot, Mailroom in this process) and samples every 100 ms the
 * parts of `process.memoryUsage()` (the main thread's heap; external and array buffers of every
 * thread) and /proc's RssAnon / RssFile, with the messages synced so far. The baseline is taken
 * once the parse threads are ready and idle, so a thread still loading is not counted as sync.
 * Experiments by environment: BENCH_SQLITE_CACHE_KB sets the main connection's cache_size,
 * BENCH_HEAP_SNAPSHOT=1 writes a heap snapshot of the main thread at the peak of heapUsed (by
 * 10% steps of progress), and glibc's MALLOC_ARENA_MAX / MALLOC_TRIM_THRESHOLD_ or V8's
 * --max-semi-space-size can be set around the command.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import v8 from 'node:v8';
import { SqliteDb } from '../../src/db/sqlite.js';
import { benchWorld, largeMessage, smallMessage } from './imap-world.js';

type Sample = Record<
  'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers' | 'anon' | 'file',
  number
> & {
  synced: number;
  at: number;
};

const mode = process.argv[2] === 'large' ? 'large' : 'small';
const count = Number(process.argv[3] ?? (mode === 'large' ? 30 : 20_000));
const size = Number(process.argv[4] ?? 25);
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0).padStart(5);

function procStatus(): { anon: number; file: number } {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
}

function sample(synced: number, began: number): Sample {
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return {
    rss,
    heapTotal,
    heapUsed,
    external,
    arrayBuffers,
    ...procStatus(),
    synced,
    at: Date.now() - began,
  };
}

const world = await benchWorld(
  mode,
  count,
  mode === 'large' ? largeMessage(size) : smallMessage(Date.now() - count * 60_000),
  process.env.BENCH_IMAP_BATCH ? { imapOptions: { batchSize: Number(process.env.BENCH_IMAP_BATCH) } } : {},
);
const { deps } = world.server.mailroom;
const sqlite = deps.store.db instanceof SqliteDb ? deps.store.db.sqlite : undefined;
if (process.env.BENCH_SQLITE_CACHE_KB && sqlite)
  sqlite.pragma(`cache_size = -${process.env.BENCH_SQLITE_CACHE_KB}`);
await deps.parser?.ready();
await new Promise((r) => setTimeout(r, 2000));
global.gc?.();
const profiling = process.env.BENCH_ALLOC_PROFILE ? new Session() : null;
if (profiling) {
  profiling.connect();
  // Objects a major collection freed are kept in the profile: they are the ones that were promoted.
  await profiling.post('HeapProfiler.startSampling', {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env.BENCH_ALLOC_PROFILE === 'all',
  });
}
const cpu = process.cpuUsage();
const began = Date.now();
const baseline = sample(0, began);
const samples: Sample[] = [];
let synced = 0;
let snapshotAt = -1;
let probedAt = 0;
let bestHeap = 0;
const sampler = setInterval(() => {
  const s = sample(synced, began);
  samples.push(s);
  const step = Math.floor((10 * synced) / count);
  if (process.env.BENCH_GC_PROBE && step > probedAt && step < 10 && global.gc) {
    probedAt = step;
    const before = process.memoryUsage();
    global.gc();
    const after = process.memoryUsage();
    console.log(
      `gc at ${synced}: heapUsed ${mb(before.heapUsed - baseline.heapUsed)} -> ${mb(after.heapUsed - baseline.heapUsed)} MB, ` +
        `arrayBuffers ${mb(before.arrayBuffers)} -> ${mb(after.arrayBuffers)}, rss ${mb(before.rss - baseline.rss)} -> ${mb(after.rss - baseline.rss)}`,
    );
  }
  if (process.env.BENCH_HEAP_SNAPSHOT && s.heapUsed > bestHeap && step > snapshotAt && step < 10) {
    bestHeap = s.heapUsed;
    snapshotAt = step;
    console.log(`heap snapshot at ${synced} synced: ${v8.writeHeapSnapshot()}`);
  }
}, 100);
const counting = setInterval(() => {
  void (async () => {
    const inbox = await deps.store.inboxes.findByAddress(world.address);
    const folder = inbox && (await deps.store.folders.find(inbox.id, 'INBOX'));
    if (folder) synced = await deps.store.folders.countMessages(folder.id);
  })();
}, 500);
const seconds = await world.sync();
const cpuUsed = process.cpuUsage(cpu);
const cpuSeconds = (cpuUsed.user + cpuUsed.system) / 1e6;
synced = count;
clearInterval(counting);
await new Promise((r) => setTimeout(r, 1000));
samples.push(sample(count, began));
clearInterval(sampler);

const fields = ['rss', 'anon', 'file', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'] as const;
console.log(
  `${mode} sync of ${count}${mode === 'large' ? ` x ${size} MB` : ''} messages in ${seconds.toFixed(1)} s; ` +
    `MB, growth over the baseline (baseline row absolute)`,
);
console.log(['   t s', ' synced', ...fields.map((f) => f.slice(0, 6).padStart(6))].join(' '));
const row = (s: Sample, absolute = false) =>
  console.log(
    [
      (s.at / 1000).toFixed(1).padStart(6),
      String(s.synced).padStart(7),
      ...fields.map((f) => ` ${mb(absolute ? s[f] : s[f] - baseline[f])}`),
    ].join(' '),
  );
row(baseline, true);
let step = -1;
for (const s of samples) {
  const now = Math.floor((10 * s.synced) / count);
  if (now > step) {
    step = now;
    row(s);
  }
}
const peakOf = (f: (typeof fields)[number]) => samples.reduce((best, s) => (s[f] > best[f] ? s : best));
console.log('peaks (the row of each part at its own peak):');
for (const f of fields) {
  process.stdout.write(`${f.padEnd(12)}`);
  row(peakOf(f));
}
const peak = peakOf('rss');
console.log(
  `SUMMARY rss baseline ${mb(baseline.rss).trim()} MB, peak +${mb(peak.rss - baseline.rss).trim()} MB ` +
    `(heapTotal +${mb(peak.heapTotal - baseline.heapTotal).trim()}, arrayBuffers +${mb(peak.arrayBuffers - baseline.arrayBuffers).trim()}, ` +
    `rest +${mb(peak.anon - baseline.anon - (peak.heapTotal - baseline.heapTotal) - (peak.arrayBuffers - baseline.arrayBuffers)).trim()}), ` +
    `${seconds.toFixed(1)} s, ${cpuSeconds.toFixed(1)} s CPU`,
);
if (sqlite) {
  const pragma = (name: string) => sqlite.pragma(name, { simple: true }) as number;
  console.log(
    `SQLite main connection: cache_size ${pragma('cache_size')}, page_size ${pragma('page_size')}, ` +
      `database ${mb(pragma('page_count') * pragma('page_size'))} MB, mmap_size ${pragma('mmap_size')}`,
  );
}
if (profiling) {
  const { profile } = await profiling.post('HeapProfiler.stopSampling');
  printProfile(profile.head);
}
global.gc?.();
const settled = sample(count, began);
console.log(
  `after a full collection: heapUsed +${mb(settled.heapUsed - baseline.heapUsed).trim()} MB, rss +${mb(settled.rss - baseline.rss).trim()} MB`,
);
const heap = v8.getHeapSpaceStatistics();
console.log(
  'V8 spaces now (MB size/used): ' +
    heap.map((s) => `${s.space_name} ${mb(s.space_size).trim()}/${mb(s.space_used_size).trim()}`).join(', '),
);
await world.stop();

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Sampled bytes by allocating function, and by the package or file it is in. */
function printProfile(head: ProfileNode): void {
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  const walk = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const place =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? url.replace(/^.*\/(src|test)\//, '$1/');
    const name = `${functionName || '(anonymous)'} ${place}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    byPlace.set(place, (byPlace.get(place) ?? 0) + node.selfSize);
    node.children.forEach(walk);
  };
  walk(head);
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${mb(v)} MB  ${k}`);
  console.log(
    ['sampled allocations by place:', ...top(byPlace, 15), 'by function:', ...top(byFunction, 30)].join('\n'),
  );
}
