/**
 * IMAP benchmark on a local Dovecot: the initial sync of a 20,000-message mailbox (time, CPU,
 * RSS growth of the server process), the time from another client's APPEND to the message being
 * listed with push IDLE and on a server without IDLE (the INBOX check), and the server's RSS
 * while syncing big mail. `runImapBench()` is wired into `npm run bench` (which builds first:
 * the server runs from the build); `tsx test/bench/imap.ts` runs it alone.
 */
import crypto from 'node:crypto';
import type { TestServer } from '../helpers/server.js';
import { rawMessage } from '../helpers/dovecot.js';
import { benchWorld, largeMessage, serverWorld, smallMessage } from './imap-world.js';
import type { ServerSync } from './imap-world.js';

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

interface Appender {
  append(path: string, raw: string, flags: string[]): Promise<unknown>;
}

/** APPENDs by another client, one after another: ms from each APPEND to `seen` resolving. */
async function arrivalLatencies(
  other: Appender,
  arrivals: number,
  seenAt: (subject: string) => Promise<number>,
): Promise<{ p50: number; p99: number }> {
  const latencies: number[] = [];
  for (let i = 0; i < arrivals; i++) {
    const subject = `Arrival ${i} ${crypto.randomUUID()}`;
    const seen = seenAt(subject);
    const sentAt = Date.now();
    await other.append('INBOX', rawMessage({ subject }), []);
    latencies.push((await seen) - sentAt);
  }
  latencies.sort((a, b) => a - b);
  return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

/** When the in-process server's bus carries `email.received` for the subject. */
function onBus(server: TestServer) {
  return (subject: string) =>
    new Promise<number>((resolve) => {
      const off = server.mailroom.deps.bus.subscribe((rows) => {
        if (rows.some((r) => r.type === 'email.received' && r.payload.includes(subject))) {
          off();
          resolve(Date.now());
        }
      });
    });
}

/**
 * Initial sync of `messages` small messages by `mailroom serve`, then new mail over push IDLE
 * (seen by a long-poll on the subject, so a few ms of HTTP are included).
 */
export async function runImapBench(
  messages = Number(process.env.BENCH_IMAP_MESSAGES ?? 20_000),
  arrivals = 50,
): Promise<ServerSync & { messages: number; newMailP50Ms: number; newMailP99Ms: number }> {
  const world = await serverWorld('bench', messages, smallMessage(Date.now() - messages * 60_000));
  try {
    const synced = await world.sync();
    const other = await world.dovecot.client('bench');
    const latency = await arrivalLatencies(other, arrivals, (subject) => world.arrival(subject));
    await other.logout();
    return { messages, ...synced, newMailP50Ms: latency.p50, newMailP99Ms: latency.p99 };
  } finally {
    await world.stop();
  }
}

/**
 * New mail on a server that has no IDLE (Debian's Cyrus and Courier do not push through theirs):
 * it comes through the INBOX check every MAILROOM_IMAP_CHECK_SECONDS (default 4 s).
 */
export async function runImapNoIdleBench(arrivals = 10) {
  const world = await benchWorld('noidle', 10, (i) => rawMessage({ subject: `Old ${i}` }), {
    dovecot: { extraConfig: 'imap_capability = IMAP4rev1 LITERAL+ SASL-IR ID ENABLE UIDPLUS MOVE\n' },
  });
  try {
    await world.sync();
    const other = await world.dovecot.client('noidle');
    const latency = await arrivalLatencies(other, arrivals, onBus(world.server));
    await other.logout();
    return { arrivals, ...latency };
  } finally {
    await world.stop();
  }
}

/**
 * The server's memory while syncing big mail (issue 17: 30 messages of 28.7 MB took RSS from
 * 364 MB to 1,982 MB): `count` messages each carrying `size` MB of attachment.
 */
export async function runImapLargeBench(count = 30, size = 25) {
  const world = await serverWorld('large', count, largeMessage(size));
  try {
    return { count, mb: size, ...(await world.sync()) };
  } finally {
    await world.stop();
  }
}

const memory = (s: ServerSync) =>
  `RSS ${s.baselineMb} MB before, ${s.peakMb} MB at peak (+${s.peakMb - s.baselineMb} MB), ${s.afterMb} MB 5 s after`;

/** The bench's report lines, for `npm run bench -- imap` and for running this file alone. */
export async function printImapBench(log: (line: string) => void = console.log): Promise<void> {
  const result = await runImapBench();
  log(
    `initial sync of ${result.messages} messages: ${result.seconds.toFixed(1)} s, ` +
      `${Math.round(result.messages / result.seconds)} msg/s, ${result.cpuSeconds.toFixed(1)} s of CPU ` +
      `(the server process; a shared machine: compare this), ${memory(result)}`,
  );
  log(
    `new mail with push IDLE (another client's APPEND to a long-poll's answer): p50 ${result.newMailP50Ms} ms   p99 ${result.newMailP99Ms} ms`,
  );
  const polled = await runImapNoIdleBench();
  log(
    `new mail on a server without IDLE (INBOX check every 4 s): p50 ${polled.p50} ms   p99 ${polled.p99} ms (${polled.arrivals} arrivals)`,
  );
  const large = await runImapLargeBench();
  log(
    `initial sync of ${large.count} messages of ${large.mb} MB: ${large.seconds.toFixed(1)} s, ${memory(large)}, WAL ${large.walMb} MB after`,
  );
}

/**
 * Alone: `tsx test/bench/imap.ts` prints every line; `tsx test/bench/imap.ts large [count] [MB]`
 * only the big-mail line, `small [count]` only the initial sync of small messages (the server
 * runs from the build: `npm run build` first).
 */
if (/bench[/\\]imap\.ts$/.test(process.argv[1] ?? '')) {
  if (process.argv[2] === 'small') {
    const small = await runImapBench(Number(process.argv[3] ?? 20_000), 0);
    console.log(
      `initial sync of ${small.messages} messages: ${small.seconds.toFixed(1)} s, ` +
        `${small.cpuSeconds.toFixed(1)} s of CPU, ${memory(small)}`,
    );
  } else if (process.argv[2] === 'large') {
    const large = await runImapLargeBench(Number(process.argv[3] ?? 30), Number(process.argv[4] ?? 25));
    console.log(
      `initial sync of ${large.count} messages of ${large.mb} MB: ${large.seconds.toFixed(1)} s, ` +
        `${large.cpuSeconds.toFixed(1)} s of CPU, ${memory(large)}, WAL ${large.walMb} MB after`,
    );
  } else await printImapBench();
}
