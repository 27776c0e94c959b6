/**
 * IMAP benchmark on a local Dovecot: the initial sync of a 20,000-message mailbox (time, rate,
 * RSS growth), the time from another client's APPEND to the `email.received` event with push
 * IDLE and on a server without IDLE (the INBOX check), and peak RSS while syncing big mail.
 * `runImapBench()` is wired into `npm run bench`; `tsx test/bench/imap.ts` runs it alone.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { DovecotOptions } from '../helpers/dovecot.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import { ADMIN_TOKEN } from '../helpers/imap-setup.js';
import { connectAndSync, fillMaildir } from '../helpers/maildir.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

export interface ImapBenchResult {
  messages: number;
  initialSyncSeconds: number;
  /** Server process RSS growth while syncing, peak over the RSS before connecting. */
  rssGrowthMb: number;
  /** CPU seconds this process (Mailroom and its threads; not Dovecot) spent on the sync. */
  cpuSeconds: number;
  newMailP50Ms: number;
  newMailP99Ms: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** Peak RSS while `work` runs, sampled every 50 ms, with the RSS before it. */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ value: T; baseline: number; peak: number }> {
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  try {
    const value = await work();
    return { value, baseline, peak: Math.max(peak, process.memoryUsage().rss) };
  } finally {
    clearInterval(sampler);
  }
}

/** A world of one Dovecot user with `count` messages already in its Maildir and a Mailroom beside it. */
async function benchWorld(
  user: string,
  count: number,
  make: (i: number) => string,
  options: { dovecot?: DovecotOptions; env?: Record<string, string> } = {},
) {
  const dovecot = await startDovecot(options.dovecot);
  dovecot.addUser(user, `${user}-password`);
  fillMaildir(dovecot, user, count, make);
  const capture = await startCaptureServer();
  const server = await startServer({
    adminToken: ADMIN_TOKEN,
    imapOptions: { batchSize: 500 },
    ...(options.env ? { env: options.env } : {}),
  });
  const address = `${user}@example.org`;
  return {
    dovecot,
    server,
    address,
    sync: () => connectAndSync(server, { address, imapUrl: dovecot.url(user), smtpUrl: capture.url }, count),
    async stop() {
      await server.stop();
      await capture.close();
      await dovecot.stop();
    },
  };
}

/** APPENDs by another client, one after another: ms from each APPEND to its `email.received`. */
async function arrivalLatencies(
  server: TestServer,
  other: { append(path: string, raw: string, flags: string[]): Promise<unknown> },
  arrivals: number,
): Promise<{ p50: number; p99: number }> {
  const latencies: number[] = [];
  for (let i = 0; i < arrivals; i++) {
    const subject = `Arrival ${i} ${crypto.randomUUID()}`;
    const seen = new Promise<number>((resolve) => {
      const off = server.mailroom.deps.bus.subscribe((rows) => {
        if (rows.some((r) => r.type === 'email.received' && r.payload.includes(subject))) {
          off();
          resolve(Date.now());
        }
      });
    });
    const sentAt = Date.now();
    await other.append('INBOX', rawMessage({ subject }), []);
    latencies.push((await seen) - sentAt);
  }
  latencies.sort((a, b) => a - b);
  return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

/** Initial sync of `messages` small messages, then new mail over push IDLE. */
export async function runImapBench(
  messages = Number(process.env.BENCH_IMAP_MESSAGES ?? 20_000),
  arrivals = 50,
): Promise<ImapBenchResult> {
  const start = Date.now() - messages * 60_000;
  const world = await benchWorld('bench', messages, (i) =>
    rawMessage({
      subject: `Message ${i} about ${['invoices', 'the meeting', 'the budget'][i % 3]}`,
      date: new Date(start + i * 60_000),
      text: `${crypto.randomBytes(1500).toString('base64')}\n`,
    }),
  );
  try {
    const cpu = process.cpuUsage();
    const synced = await withPeakRss(world.sync);
    const used = process.cpuUsage(cpu);
    const other = await world.dovecot.client('bench');
    const latency = await arrivalLatencies(world.server, other, arrivals);
    await other.logout();
    return {
      messages,
      initialSyncSeconds: synced.value,
      rssGrowthMb: mb(synced.peak - synced.baseline),
      cpuSeconds: (used.user + used.system) / 1e6,
      newMailP50Ms: latency.p50,
      newMailP99Ms: latency.p99,
    };
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
    const latency = await arrivalLatencies(world.server, other, arrivals);
    await other.logout();
    return { arrivals, ...latency };
  } finally {
    await world.stop();
  }
}

/**
 * Peak memory while syncing big mail (issue 17: 30 messages of 28.7 MB took RSS from 364 MB to
 * 1,982 MB): `count` messages each carrying `mb` MB of attachment.
 */
export async function runImapLargeBench(count = 30, size = 25) {
  const attachment = crypto.randomBytes(Math.floor((size * 1024 * 1024 * 3) / 4)).toString('base64');
  const world = await benchWorld('large', count, (i) =>
    [
      'From: sender@example.com',
      'To: large@example.org',
      `Subject: Large ${i}`,
      `Message-ID: <large-${i}@example.com>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'see attached',
      '--b',
      'Content-Type: application/octet-stream; name="data.bin"',
      'Content-Transfer-Encoding: base64',
      '',
      attachment.replace(/.{76}/g, '$&\r\n'),
      '--b--',
      '',
    ].join('\r\n'),
  );
  try {
    const synced = await withPeakRss(world.sync);
    const wal = `${world.server.dataDir}/mailroom.db-wal`;
    return {
      count,
      mb: size,
      seconds: synced.value,
      baselineMb: mb(synced.baseline),
      peakMb: mb(synced.peak),
      walMb: fs.existsSync(wal) ? mb(fs.statSync(wal).size) : 0,
    };
  } finally {
    await world.stop();
  }
}

/** The bench's report lines, for `npm run bench -- imap` and for running this file alone. */
export async function printImapBench(log: (line: string) => void = console.log): Promise<void> {
  const result = await runImapBench();
  log(
    `initial sync of ${result.messages} messages: ${result.initialSyncSeconds.toFixed(1)} s, ` +
      `${Math.round(result.messages / result.initialSyncSeconds)} msg/s, ${result.cpuSeconds.toFixed(1)} s of CPU ` +
      `(a shared machine: compare this), RSS +${result.rssGrowthMb} MB at peak`,
  );
  log(
    `new mail with push IDLE (another client's APPEND to email.received): p50 ${result.newMailP50Ms} ms   p99 ${result.newMailP99Ms} ms`,
  );
  const polled = await runImapNoIdleBench();
  log(
    `new mail on a server without IDLE (INBOX check every 4 s): p50 ${polled.p50} ms   p99 ${polled.p99} ms (${polled.arrivals} arrivals)`,
  );
  const large = await runImapLargeBench();
  log(
    `initial sync of ${large.count} messages of ${large.mb} MB: ${large.seconds.toFixed(1)} s, RSS ${large.baselineMb} MB before, ${large.peakMb} MB at peak (+${large.peakMb - large.baselineMb} MB), WAL ${large.walMb} MB after`,
  );
}

if (/bench[/\\]imap\.ts$/.test(process.argv[1] ?? '')) await printImapBench();
