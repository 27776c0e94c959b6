/**
 * IMAP benchmark: the initial sync of a 10,000-message mailbox on a local Dovecot, and the time
 * from an APPEND by another client to the `email.received` event (new mail over IDLE).
 * `runImapBench()` is wired into `npm run bench`; `tsx test/bench/imap.ts` runs it alone.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Dovecot } from '../helpers/dovecot.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import { ADMIN_TOKEN } from '../helpers/imap-setup.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

export interface ImapBenchResult {
  messages: number;
  initialSyncSeconds: number;
  newMailP50Ms: number;
  newMailP99Ms: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/**
 * Puts `count` messages straight into a Dovecot user's Maildir (as another delivery agent would):
 * Dovecot indexes them on the first SELECT. Every other one is marked seen.
 */
export function fillMaildir(
  dovecot: Dovecot,
  user: string,
  count: number,
  make: (i: number) => string | Buffer,
): void {
  const maildir = path.join(dovecot.dir, 'mail', user);
  const owner = fs.statSync(path.join(dovecot.dir, 'mail'));
  for (const sub of ['cur', 'new', 'tmp']) fs.mkdirSync(path.join(maildir, sub), { recursive: true });
  const stamp = Math.floor(Date.now() / 1000);
  for (let i = 0; i < count; i++) {
    fs.writeFileSync(path.join(maildir, 'cur', `${stamp + i}.M${i}P1.bench:2,${i % 2 ? 'S' : ''}`), make(i));
  }
  for (const entry of [maildir, ...['cur', 'new', 'tmp'].map((s) => path.join(maildir, s))]) {
    fs.chownSync(entry, owner.uid, owner.gid);
  }
  for (const file of fs.readdirSync(path.join(maildir, 'cur'))) {
    fs.chownSync(path.join(maildir, 'cur', file), owner.uid, owner.gid);
  }
}

/** Connects the mailbox and waits for its INBOX to hold `messages`: the seconds it took. */
async function connectAndSync(
  server: TestServer,
  imapUrl: string,
  smtpUrl: string,
  address: string,
  messages: number,
): Promise<number> {
  const began = Date.now();
  const res = await server.api('/admin/v1/inboxes', {
    key: ADMIN_TOKEN,
    body: { address, user: 'default', imap: { url: imapUrl }, smtp: { url: smtpUrl } },
  });
  if (res.status !== 201) throw new Error(`connect: ${res.status} ${res.text}`);
  const store = server.mailroom.deps.store;
  const inbox = (await store.inboxes.findByAddress(address))!;
  const folder = (await store.folders.find(inbox.id, 'INBOX'))!;
  while (
    (await store.folders.countMessages(folder.id)) < messages ||
    !(await store.inboxes.get(inbox.id))!.last_sync_at
  ) {
    await new Promise((r) => setTimeout(r, 20));
  }
  return (Date.now() - began) / 1000;
}

/**
 * Peak memory while syncing big mail (issue 17: 30 messages of 28.7 MB took RSS from 364 MB to
 * 1,982 MB): `count` messages each carrying `mb` MB of attachment, RSS sampled every 50 ms.
 */
export async function runImapLargeBench(count = 30, mb = 25) {
  const dovecot = await startDovecot();
  const user = 'large';
  dovecot.addUser(user, 'large-password');
  const attachment = crypto.randomBytes(Math.floor((mb * 1024 * 1024 * 3) / 4)).toString('base64');
  fillMaildir(dovecot, user, count, (i) =>
    [
      'From: sender@example.com',
      `To: ${user}@example.org`,
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
  const capture = await startCaptureServer();
  const server = await startServer({ adminToken: ADMIN_TOKEN });
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  try {
    const seconds = await connectAndSync(
      server,
      dovecot.url(user),
      capture.url,
      `${user}@example.org`,
      count,
    );
    const wal = `${server.dataDir}/mailroom.db-wal`;
    return {
      count,
      mb,
      seconds,
      baselineMb: Math.round(baseline / 2 ** 20),
      peakMb: Math.round(peak / 2 ** 20),
      walMb: fs.existsSync(wal) ? Math.round(fs.statSync(wal).size / 2 ** 20) : 0,
    };
  } finally {
    clearInterval(sampler);
    await server.stop();
    await capture.close();
    await dovecot.stop();
  }
}

export async function runImapBench(
  messages = Number(process.env.BENCH_IMAP_MESSAGES ?? 10_000),
  arrivals = 50,
) {
  const dovecot = await startDovecot();
  const user = 'bench';
  dovecot.addUser(user, 'bench-password');
  const start = Date.now() - messages * 60_000;
  fillMaildir(dovecot, user, messages, (i) =>
    rawMessage({
      subject: `Message ${i} about ${['invoices', 'the meeting', 'the budget'][i % 3]}`,
      date: new Date(start + i * 60_000),
      text: `${crypto.randomBytes(1500).toString('base64')}\n`,
    }),
  );

  const capture = await startCaptureServer();
  const server = await startServer({ adminToken: ADMIN_TOKEN, imapOptions: { batchSize: 500 } });
  const address = `${user}@example.org`;
  try {
    const initialSyncSeconds = await connectAndSync(
      server,
      dovecot.url(user),
      capture.url,
      address,
      messages,
    );

    const other = await dovecot.client(user);
    const latencies: number[] = [];
    for (let i = 0; i < arrivals; i++) {
      const subject = `Arrival ${i}`;
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
    await other.logout();
    latencies.sort((a, b) => a - b);
    return {
      messages,
      initialSyncSeconds,
      newMailP50Ms: quantile(latencies, 0.5),
      newMailP99Ms: quantile(latencies, 0.99),
    } satisfies ImapBenchResult;
  } finally {
    await server.stop();
    await capture.close();
    await dovecot.stop();
  }
}

if (/bench[/\\]imap\.ts$/.test(process.argv[1] ?? '')) {
  const result = await runImapBench();
  console.log(`initial sync of ${result.messages} messages: ${result.initialSyncSeconds.toFixed(1)} s`);
  console.log(
    `new mail (APPEND to email.received): p50 ${result.newMailP50Ms} ms   p99 ${result.newMailP99Ms} ms`,
  );
}
