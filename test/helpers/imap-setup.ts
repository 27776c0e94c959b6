import type { ImapFlow } from 'imapflow';
import type { CaptureServer } from './capture-smtp.js';
import { startCaptureServer } from './capture-smtp.js';
import type { Dovecot, DovecotOptions } from './dovecot.js';
import { startDovecot } from './dovecot.js';
import type { TestServer } from './server.js';
import { eventually, startServer } from './server.js';

export const ADMIN_TOKEN = 'imap-test-admin-token-0123456789';

/** Short intervals so a test sees sync, IDLE and reconnects within a second or two. */
export const FAST_IMAP = {
  pollMs: 400,
  backoffMinMs: 100,
  backoffMaxMs: 400,
  watchMs: 200,
  connectTimeoutMs: 3000,
};

export interface ImapWorld {
  dovecot: Dovecot;
  capture: CaptureServer;
  server: TestServer;
  /** The second mail program: a plain IMAP client on the same mailbox. */
  other: ImapFlow;
  address: string;
  user: string;
  password: string;
  connect(): Promise<{ status: number; json: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  stop(): Promise<void>;
}

/** Dovecot with one mailbox, a capture SMTP server, and a Mailroom server ready to connect it. */
export async function startImapWorld(
  user = 'owner',
  options: {
    dovecot?: DovecotOptions;
    env?: Record<string, string>;
    imapOptions?: Partial<typeof FAST_IMAP>;
  } = {},
): Promise<ImapWorld> {
  const dovecot = await startDovecot(options.dovecot);
  const password = `pw-${user}-S3cret!`;
  dovecot.addUser(user, password);
  const capture = await startCaptureServer();
  const server = await startServer({
    adminToken: ADMIN_TOKEN,
    imapOptions: { ...FAST_IMAP, ...options.imapOptions },
    ...(options.env ? { env: options.env } : {}),
  });
  const other = await dovecot.client(user);
  const address = `${user}@example.org`;
  return {
    dovecot,
    capture,
    server,
    other,
    address,
    user,
    password,
    async connect() {
      return server.api('/admin/v1/inboxes', {
        key: ADMIN_TOKEN,
        body: {
          address,
          user: 'default',
          imap: { url: dovecot.url(user) },
          smtp: { url: capture.url },
        },
      });
    },
    async stop() {
      await other.logout().catch(() => other.close());
      await server.stop();
      await capture.close();
      await dovecot.stop();
    },
  };
}

/** Emails of a folder of the connected inbox, through the API. */
export async function listFolder(world: ImapWorld, folder: string) {
  const res = await world.server.api(
    `/emails?account=${encodeURIComponent(world.address)}&folder=${encodeURIComponent(folder)}&limit=100`,
  );
  if (res.status !== 200) throw new Error(`list ${folder}: ${res.status} ${res.text}`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return res.json.data.emails as any[];
}

/** Waits until a folder, listed through the API, satisfies `check`. */
export function eventuallyFolder(
  world: ImapWorld,
  folder: string,
  check: (emails: any[]) => boolean, // eslint-disable-line @typescript-eslint/no-explicit-any
  timeoutMs = 10_000,
) {
  return eventually(async () => {
    const emails = await listFolder(world, folder).catch(() => null);
    return emails && check(emails) ? emails : null;
  }, timeoutMs);
}

/** What the other client sees in a folder: subject and flags by UID. */
export async function remoteFolder(client: ImapFlow, path: string) {
  const lock = await client.getMailboxLock(path);
  try {
    // Select again: a client that keeps a folder open learns of expunges only at its next command.
    await client.mailboxOpen(path);
    if (!client.mailbox || client.mailbox.exists === 0) return [];
    const messages = await client.fetchAll('1:*', { uid: true, flags: true, envelope: true });
    return messages.map((m) => ({
      uid: m.uid,
      subject: m.envelope?.subject ?? '',
      messageId: m.envelope?.messageId ?? '',
      flags: [...(m.flags ?? [])],
    }));
  } finally {
    lock.release();
  }
}

/**
 * Connects a mailbox through the admin API and waits until its INBOX holds `messages` and the
 * first sync has finished: the seconds that took.
 */
export async function connectAndSync(
  server: TestServer,
  connect: { address: string; imapUrl: string; smtpUrl: string },
  messages: number,
): Promise<number> {
  const began = Date.now();
  const res = await server.api('/admin/v1/inboxes', {
    key: ADMIN_TOKEN,
    body: {
      address: connect.address,
      user: 'default',
      imap: { url: connect.imapUrl },
      smtp: { url: connect.smtpUrl },
    },
  });
  if (res.status !== 201) throw new Error(`connect: ${res.status} ${res.text}`);
  const store = server.mailroom.deps.store;
  const inbox = (await store.inboxes.findByAddress(connect.address))!;
  const folder = (await store.folders.find(inbox.id, 'INBOX'))!;
  while (
    (await store.folders.countMessages(folder.id)) < messages ||
    !(await store.inboxes.get(inbox.id))!.last_sync_at
  ) {
    await new Promise((r) => setTimeout(r, 20));
  }
  return (Date.now() - began) / 1000;
}
