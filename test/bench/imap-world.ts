/**
 * The IMAP bench's worlds: a Dovecot user whose Maildir already holds the mailbox, and a Mailroom
 * beside it, either in this process (`benchWorld`, for what needs its event bus or its heap) or
 * as its own `mailroom serve` process (`serverWorld`, for the memory and CPU a user's server
 * spends: nothing of the bench's own work is counted, and the code is the compiled build).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { DovecotOptions } from '../helpers/dovecot.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import { ADMIN_TOKEN, connectAndSync } from '../helpers/imap-setup.js';
import { fillMaildir } from '../helpers/maildir.js';
import { startServer } from '../helpers/server.js';
import type { MailroomOptions } from '../../src/mailroom.js';
import { startMailroom } from './processes.js';

export const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** A maker of the bench's small messages (~2.5 KB), one a minute from `start`. */
export function smallMessage(start: number): (i: number) => string {
  return (i) =>
    rawMessage({
      subject: `Message ${i} about ${['invoices', 'the meeting', 'the budget'][i % 3]}`,
      date: new Date(start + i * 60_000),
      text: `${crypto.randomBytes(1500).toString('base64')}\n`,
    });
}

export { largeMessage } from '../helpers/large-message.js';

async function mailSource(
  user: string,
  count: number,
  make: (i: number) => string,
  dovecot?: DovecotOptions,
) {
  const server = await startDovecot(dovecot);
  server.addUser(user, `${user}-password`);
  fillMaildir(server, user, count, make);
  return server;
}

/** A world of one Dovecot user with `count` messages already in its Maildir and a Mailroom in this process. */
export async function benchWorld(
  user: string,
  count: number,
  make: (i: number) => string,
  options: { dovecot?: DovecotOptions; imapOptions?: MailroomOptions['imapOptions'] } = {},
) {
  const dovecot = await mailSource(user, count, make, options.dovecot);
  const capture = await startCaptureServer();
  const server = await startServer({ adminToken: ADMIN_TOKEN, imapOptions: options.imapOptions });
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

/** What /proc says of a process: resident memory (all threads) and CPU seconds so far (all threads). */
function processFigures(pid: number): { rss: number; cpuSeconds: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) * 1024;
  // Fields 14 and 15 of /proc/PID/stat (after the command's closing parenthesis): utime, stime in ticks.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [utime, stime] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 13)
    .map(Number);
  return { rss, cpuSeconds: (utime! + stime!) / 100 };
}

export interface ServerSync {
  seconds: number;
  cpuSeconds: number;
  baselineMb: number;
  peakMb: number;
  /** RSS 5 s after the sync finished. */
  afterMb: number;
  walMb: number;
}

/**
 * A world whose Mailroom is `mailroom serve` in its own process (default settings, durable
 * commits), the mailbox connected through the admin API as a user would.
 */
export async function serverWorld(
  user: string,
  count: number,
  make: (i: number) => string,
  env: Record<string, string> = {},
) {
  const dovecot = await mailSource(user, count, make);
  const capture = await startCaptureServer();
  const server = await startMailroom({ MAILROOM_ADMIN_TOKEN: ADMIN_TOKEN, ...env });
  const address = `${user}@example.org`;
  const base = `http://127.0.0.1:${server.httpPort}`;
  const api = async (path: string, key: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as { data: Record<string, unknown> };
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const synced = async () => {
    const { folders } = (await api(`/api/v1/folders?account=${address}`, server.apiKey)) as {
      folders: { name: string; total: number }[];
    };
    if ((folders.find((f) => f.name === 'INBOX')?.total ?? 0) < count) return false;
    const { accounts } = (await api('/api/v1/accounts', server.apiKey)) as {
      accounts: { address: string; sync?: { lastSyncAt: string | null } }[];
    };
    return !!accounts.find((a) => a.address === address)?.sync?.lastSyncAt;
  };
  const pid = server.process.pid!;
  return {
    dovecot,
    server,
    address,
    /** Connects the mailbox and samples the server's RSS every 50 ms until its first sync is done. */
    async sync(): Promise<ServerSync> {
      // The parse threads load while the server starts; let them settle before the baseline.
      await new Promise((r) => setTimeout(r, 3000));
      const before = processFigures(pid);
      let peak = before.rss;
      const sampler = setInterval(() => (peak = Math.max(peak, processFigures(pid).rss)), 50);
      const began = Date.now();
      try {
        await api('/admin/v1/inboxes', ADMIN_TOKEN, {
          address,
          user: 'default',
          imap: { url: dovecot.url(user) },
          smtp: { url: capture.url },
        });
        while (!(await synced())) await new Promise((r) => setTimeout(r, 250));
      } finally {
        clearInterval(sampler);
      }
      const seconds = (Date.now() - began) / 1000;
      const done = processFigures(pid);
      peak = Math.max(peak, done.rss);
      await new Promise((r) => setTimeout(r, 5000));
      const wal = `${server.dataDir}/mailroom.db-wal`;
      return {
        seconds,
        cpuSeconds: done.cpuSeconds - before.cpuSeconds,
        baselineMb: mb(before.rss),
        peakMb: mb(peak),
        afterMb: mb(processFigures(pid).rss),
        walMb: fs.existsSync(wal) ? mb(fs.statSync(wal).size) : 0,
      };
    },
    /** Resolves with the time a long-poll for this subject is answered. */
    async arrival(subject: string): Promise<number> {
      const query = new URLSearchParams({ account: address, subject, wait: '60' });
      for (;;) {
        const { emails } = (await api(`/api/v1/emails?${query}`, server.apiKey)) as { emails: unknown[] };
        if (emails.length > 0) return Date.now();
      }
    },
    async stop() {
      await server.stop();
      await capture.close();
      await dovecot.stop();
    },
  };
}
