import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import { fillMaildir } from '../helpers/maildir.js';
import { spawnServe } from '../helpers/serve-process.js';
import type { ServeProcess } from '../helpers/serve-process.js';

// Issue 17 finding 5: RSS grew ~200 MB while `mailroom serve` synced 20,000 small messages, most of
// it garbage V8 left in its old generation (pretenured parser objects and the Buffers they held)
// and SQLite's 64 MB page cache filling. The server runs as its own process so only its memory is
// read (/proc), never this test worker's. Measured at 8,000 messages: +72-84 MB with the fix
// (about 30 MB of it V8's young generation growing to its size, once), +160 MB with V8's own
// heap growth and pretenuring. Memory, unlike time, hardly moves on a loaded machine.
const MESSAGES = 8000;
const LIMIT_MB = 120;
const ADMIN_TOKEN = 'sync-memory-admin-token-0123456789';

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

describe('RSS while `mailroom serve` syncs a big mailbox', { timeout: 180_000 }, () => {
  let dovecot: Dovecot;
  let capture: CaptureServer;
  let server: ServeProcess;
  let dataDir: string;
  beforeAll(async () => {
    dovecot = await startDovecot();
    capture = await startCaptureServer();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-sync-memory-'));
    server = await spawnServe({
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_ADMIN_TOKEN: ADMIN_TOKEN,
      MAILROOM_DB_SYNC: 'full',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await capture?.close();
    await dovecot?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const api = async (method: string, route: string, key: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as { data: Record<string, unknown> };
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };

  it(`grows under ${LIMIT_MB} MB syncing ${MESSAGES} small messages`, async () => {
    dovecot.addUser('big', 'big-password');
    const start = Date.now() - MESSAGES * 60_000;
    fillMaildir(dovecot, 'big', MESSAGES, (i) =>
      rawMessage({
        subject: `Message ${i} about ${['invoices', 'the meeting', 'the budget'][i % 3]}`,
        date: new Date(start + i * 60_000),
        text: `${crypto.randomBytes(1500).toString('base64')}\n`,
      }),
    );
    const pid = server.child.pid!;
    // The key the first start made, shown once in the banner.
    const apiKey = /mr_live_[A-Za-z0-9_-]+/.exec(server.stderr())![0];
    // The parse threads load as the server starts: let them settle before the baseline.
    await new Promise((r) => setTimeout(r, 3000));
    const baseline = rssMb(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
    try {
      await api('POST', '/admin/v1/inboxes', ADMIN_TOKEN, {
        address: 'big@example.org',
        user: 'default',
        imap: { url: dovecot.url('big') },
        smtp: { url: capture.url },
      });
      for (;;) {
        const { accounts } = (await api('GET', '/api/v1/accounts', apiKey)) as {
          accounts: { address: string; sync?: { lastSyncAt: string | null } }[];
        };
        if (accounts.find((a) => a.address === 'big@example.org')?.sync?.lastSyncAt) break;
        await new Promise((r) => setTimeout(r, 250));
      }
    } finally {
      clearInterval(sampler);
    }
    const grown = peak - baseline;
    console.log(
      `RSS ${baseline.toFixed(0)} MB before, +${grown.toFixed(0)} MB at peak (${MESSAGES} messages)`,
    );
    expect(grown).toBeLessThan(LIMIT_MB);
  });
});
