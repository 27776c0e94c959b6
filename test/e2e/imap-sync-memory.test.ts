import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import { largeMessage } from '../helpers/large-message.js';
import { fillMaildir } from '../helpers/maildir.js';
import { SERVE_THREADS, spawnServe } from '../helpers/serve-process.js';
import type { ServeProcess } from '../helpers/serve-process.js';

// Issue 17 finding 5: RSS grew ~200 MB while `mailroom serve` synced 20,000 small messages, most of
// it garbage V8 left in its old generation (pretenured parser objects and the Buffers they held)
// and SQLite's 64 MB page cache filling. The server runs as its own process so only its memory is
// read (/proc), never this test worker's. Measured at 8,000 messages: +72-84 MB with the fix
// (about 30 MB of it V8's young generation growing to its size, once), +160 MB with V8's own
// heap growth and pretenuring. Measured again since: +100-121 MB alone on a quiet machine (+101
// with the image's malloc settings), 47-121 MB in clean-clone runs, so 120 failed one run in four;
// 150 keeps a margin and still fails the +160 MB this test was written against. What today's
// growth is made of belongs to issue 31's memory target (see docs/next-steps.md).
const MESSAGES = 8000;
const LIMIT_MB = 150;
// 25 MB messages: each was held several times at once (imapflow's chunks and their concatenation,
// a structured-clone copy for the parse thread, mailparser given the whole body in one write),
// +250-360 MB. Now streamed into shared memory and parsed in pieces (+123-136 MB), then stored in
// pieces of 1 MB and bounded without a string of the message: +81-82 MB; see docs/decisions/memory.md.
const LARGE = { count: 6, mb: 25 };
const LARGE_LIMIT_MB = 125;
const ADMIN_TOKEN = 'sync-memory-admin-token-0123456789';
// As the Docker image runs (see the Dockerfile): without the mmap threshold glibc keeps 25 MB
// blocks in its heap after the first one is freed, whatever the code does.
const IMAGE_MALLOC = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576' };

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The process's RSS once it has stayed within 1 MB for 2 s (or after 60 s, whatever it is then). */
async function settledRssMb(pid: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  let last = rssMb(pid);
  for (let still = 0; still < 8 && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 250));
    const now = rssMb(pid);
    still = Math.abs(now - last) < 1 ? still + 1 : 0;
    last = now;
  }
  return last;
}

describe('RSS while `mailroom serve` syncs a big mailbox', { timeout: 300_000 }, () => {
  let dovecot: Dovecot;
  let capture: CaptureServer;
  const servers: ServeProcess[] = [];
  const dataDirs: string[] = [];
  beforeAll(async () => {
    dovecot = await startDovecot();
    capture = await startCaptureServer();
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await capture?.close();
    await dovecot?.stop();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function serve(env: Record<string, string> = {}): Promise<ServeProcess> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-sync-memory-'));
    dataDirs.push(dataDir);
    const server = await spawnServe({
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_ADMIN_TOKEN: ADMIN_TOKEN,
      MAILROOM_DB_SYNC: 'full',
      // As a deployment runs: its memory includes the ingest thread and the parse threads.
      ...SERVE_THREADS,
      ...env,
    });
    servers.push(server);
    return server;
  }

  /** Connects the user's mailbox and answers the server's RSS growth (MB) at its peak until synced. */
  async function syncGrowth(
    server: ServeProcess,
    user: string,
  ): Promise<{ baseline: number; grown: number }> {
    const api = async (method: string, route: string, key: string, body?: unknown) => {
      const res = await fetch(`${server.baseUrl}${route}`, {
        method,
        // A connection each: polls seconds apart under load met the server closing the idle
        // connection the client was about to reuse (ECONNRESET), which says nothing about memory.
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = (await res.json()) as { data: Record<string, unknown> };
      if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    const pid = server.child.pid!;
    // The key the first start made, shown once in the banner.
    const apiKey = /mr_live_[A-Za-z0-9_-]+/.exec(server.stderr())![0];
    // The parse threads start with the first big message (and end a minute after the last): one
    // arrives over SMTP first, so they are in the baseline as when they started with the server
    // and the growth measured is the sync's own. The baseline waits until RSS holds still for 2 s
    // (a fixed 3 s wait, on a loaded machine, counted part of the start-up as growth of the sync).
    const { accounts: own } = (await api('GET', '/api/v1/accounts', apiKey)) as {
      accounts: { address: string }[];
    };
    await nodemailer
      .createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true })
      .sendMail({
        from: 'warm@example.com',
        to: own[0]!.address,
        subject: 'Big enough for a thread',
        text: 'x'.repeat(40_000),
      });
    const baseline = await settledRssMb(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
    const address = `${user}@example.org`;
    try {
      await api('POST', '/admin/v1/inboxes', ADMIN_TOKEN, {
        address,
        user: 'default',
        imap: { url: dovecot.url(user) },
        smtp: { url: capture.url },
      });
      for (;;) {
        const { accounts } = (await api('GET', '/api/v1/accounts', apiKey)) as {
          accounts: { address: string; sync?: { lastSyncAt: string | null } }[];
        };
        if (accounts.find((a) => a.address === address)?.sync?.lastSyncAt) break;
        await new Promise((r) => setTimeout(r, 250));
      }
    } finally {
      clearInterval(sampler);
    }
    return { baseline, grown: peak - baseline };
  }

  it(`grows under ${LIMIT_MB} MB syncing ${MESSAGES} small messages`, async () => {
    // Started first, as before: it settles while the mailbox is written.
    const server = await serve();
    dovecot.addUser('big', 'big-password');
    const start = Date.now() - MESSAGES * 60_000;
    fillMaildir(dovecot, 'big', MESSAGES, (i) =>
      rawMessage({
        subject: `Message ${i} about ${['invoices', 'the meeting', 'the budget'][i % 3]}`,
        date: new Date(start + i * 60_000),
        text: `${crypto.randomBytes(1500).toString('base64')}\n`,
      }),
    );
    const { baseline, grown } = await syncGrowth(server, 'big');
    console.log(
      `RSS ${baseline.toFixed(0)} MB before, +${grown.toFixed(0)} MB at peak (${MESSAGES} messages)`,
    );
    expect(grown).toBeLessThan(LIMIT_MB);
  });

  it(`grows under ${LARGE_LIMIT_MB} MB syncing ${LARGE.count} messages of ${LARGE.mb} MB`, async () => {
    const server = await serve(IMAGE_MALLOC);
    dovecot.addUser('large', 'large-password');
    const message = largeMessage(LARGE.mb);
    fillMaildir(dovecot, 'large', LARGE.count, message);
    const { baseline, grown } = await syncGrowth(server, 'large');
    console.log(
      `RSS ${baseline.toFixed(0)} MB before, +${grown.toFixed(0)} MB at peak (${LARGE.count} x ${LARGE.mb} MB)`,
    );
    expect(grown).toBeLessThan(LARGE_LIMIT_MB);
    // Downloaded in pieces into one buffer: stored byte for byte as the server has it.
    const apiKey = /mr_live_[A-Za-z0-9_-]+/.exec(server.stderr())![0];
    const res = await fetch(`${server.baseUrl}/api/v1/emails/1/raw?account=large@example.org`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const raw = Buffer.from(await res.arrayBuffer());
    const i = Number(/Subject: Large (\d+)/.exec(raw.subarray(0, 1000).toString())![1]);
    expect(raw.equals(Buffer.from(message(i)))).toBe(true);
  });
});
