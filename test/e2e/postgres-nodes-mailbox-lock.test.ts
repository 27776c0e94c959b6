import { Writable } from 'node:stream';
import type { ImapFlow } from 'imapflow';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { PostgresDb } from '../../src/db/postgres/db.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { ImapSyncManager } from '../../src/imap/sync-manager.js';
import { ownerCaller } from '../../src/mailbox/caller.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { addDomain, addUser, connectInbox } from '../../src/mailbox/operations/admin.js';
import { updateEmail } from '../../src/mailbox/organising/organise.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import { buildDeps } from '../../src/mailbox/runtime.js';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { createStore } from '../../src/store/index.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { FAST_IMAP } from '../helpers/imap-setup.js';
import { eventually } from '../helpers/server.js';
import { testPostgres } from '../helpers/test-postgres.js';

const USER = 'owner';
const SECRET = 's'.repeat(64);
const MOVES = 12;

/**
 * Two nodes' verbs and IMAP backends in this process on one database and one Dovecot mailbox:
 * node a syncs it (its sync is started), node b only writes to it (a node that did not get the
 * sync's lease). Remote writes and the sync's filing take turns across the two (contract 11).
 */
describe('remote writes of one mailbox on two nodes', { timeout: 300_000 }, () => {
  let dovecot: Dovecot;
  let capture: CaptureServer;
  let other: ImapFlow;
  const dbs: PostgresDb[] = [];
  const syncs: ImapSyncManager[] = [];
  const nodes: MailboxDeps[] = [];
  /** What each node logged, one JSON line each. */
  const logs: Record<string, string[]> = { 'node-a': [], 'node-b': [] };
  const waited = (node: string) =>
    logs[node]!.some((line) => line.includes('another node holds this mailbox'));
  let url: string;
  let inbox: InboxRow;

  beforeAll(async () => {
    dovecot = await startDovecot();
    dovecot.addUser(USER, `pw-${USER}-S3cret!`);
    capture = await startCaptureServer();
    other = await dovecot.client(USER);
    await other.mailboxCreate('Archive');
    url = await (await testPostgres()).createDatabase({ migrated: true });
    for (const id of ['node-a', 'node-b']) {
      const db = await openPostgres(url, { max: 4 });
      dbs.push(db);
      const lines = new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs[id]!.push(chunk.toString());
          done();
        },
      });
      nodes.push(
        buildDeps({
          mode: 'cli',
          store: createStore(db, 'a test secret of enough length'),
          config: loadConfig({ dataDir: '/nonexistent', nodeId: id, secret: SECRET }),
          log: pino({ level: 'debug' }, lines),
          remote: (deps) => {
            const sync = new ImapSyncManager(deps, FAST_IMAP);
            syncs.push(sync);
            return sync;
          },
        }),
      );
    }
    const [a] = nodes;
    await addDomain(a!, 'nodes.test');
    await addUser(a!, 'owner');
    syncs[0]!.start();
    ({ inbox } = await connectInbox(a!, {
      address: `${USER}@example.org`,
      user: 'owner',
      by: 'operator',
      imap: dovecot.url(USER),
      smtp: capture.url,
    }));
  });
  afterAll(async () => {
    for (const sync of syncs) await sync.stop();
    await Promise.all(dbs.map((db) => db.close()));
    await other?.logout().catch(() => other.close());
    await capture?.close();
    await dovecot?.stop();
  });

  const who = () => ownerCaller(inbox.user_id);
  const emailsIn = async (folder: string) =>
    (
      await listEmails(
        nodes[0]!,
        who(),
        ListEmailsQuery.parse({ account: inbox.address, folder, limit: 100 }),
      )
    ).emails;
  const subjectsIn = async (folder: string) => (await emailsIn(folder)).map((e) => e.subject).sort();
  /** The flags the server holds for the INBOX message with this subject. */
  const serverFlags = async (subject: string): Promise<string[]> => {
    const lock = await other.getMailboxLock('INBOX');
    try {
      const found = (await other.search({ subject }, { uid: true })) || [];
      const [message] = await other.fetchAll(found.join(','), { flags: true }, { uid: true });
      return [...(message?.flags ?? [])];
    } finally {
      lock.release();
    }
  };

  it("makes node b's remote write wait while node a holds the mailbox", async () => {
    await other.append('INBOX', rawMessage({ subject: 'Held' }));
    const held = await eventually(async () => (await emailsIn('INBOX')).find((e) => e.subject === 'Held'));
    let write: Promise<unknown> | undefined;
    let done = false;
    await nodes[0]!.remote.of(inbox).exclusive(async () => {
      write = updateEmail(nodes[1]!, who(), { account: inbox.address, uid: held.uid }, { action: 'read' });
      write.then(
        () => (done = true),
        () => (done = true),
      );
      // Node b says it waits, or (without the lock across nodes) its write is through.
      await eventually(() => done || waited('node-b'));
      expect(done).toBe(false);
      expect(await serverFlags('Held')).not.toContain('\\Seen');
    });
    // Node a has let go: b's write goes.
    await write;
    expect(await serverFlags('Held')).toContain('\\Seen');
  });

  it('moves on node b while node a syncs the mailbox: every message stored once', async () => {
    const subjects = Array.from({ length: MOVES }, (_, i) => `Moved ${i + 1}`);
    // One at a time: twelve APPENDs while the sync reads INBOX can leave one unseen for good
    // (a sync matter of its own, reported apart), which is not what this test is about.
    const filed = [];
    for (const subject of subjects) {
      await other.append('INBOX', rawMessage({ subject }));
      filed.push(await eventually(async () => (await emailsIn('INBOX')).find((e) => e.subject === subject)));
    }
    // All asked of b at once: a's sync wakes at the first (INBOX changed) and syncs Archive while
    // b is still moving the others into it.
    const moved = await Promise.all(
      filed.map((email) =>
        updateEmail(
          nodes[1]!,
          who(),
          { account: inbox.address, uid: email.uid },
          { action: 'move', folder: 'Archive' },
        ),
      ),
    );
    expect(moved.map((m) => m.folder)).toEqual(filed.map(() => 'Archive'));
    await eventually(
      async () => JSON.stringify(await subjectsIn('Archive')) === JSON.stringify(subjects.sort()),
    );
    // A's sync has passed over every folder again since the last move, and still finds each message once.
    const after = new Date(Date.now() + 2 * FAST_IMAP.pollMs).toISOString();
    await eventually(async () => (await nodes[0]!.store.inboxes.get(inbox.id))!.last_sync_at! > after);
    expect(await subjectsIn('Archive')).toEqual(subjects.sort());
    expect((await subjectsIn('INBOX')).filter((s) => s.startsWith('Moved'))).toEqual([]);
  });

  it("holds node a's sync of the target folder until a move on node b has stored where the message went", async () => {
    await other.append('INBOX', rawMessage({ subject: 'Slow move' }));
    const filed = await eventually(async () =>
      (await emailsIn('INBOX')).find((e) => e.subject === 'Slow move'),
    );
    // The row of the message is held elsewhere, so b's local change after the server's MOVE waits.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM messages WHERE inbox_id = $1 AND uid = $2 FOR UPDATE', [
        inbox.id,
        filed.uid,
      ]);
      logs['node-a']!.length = 0;
      const move = updateEmail(
        nodes[1]!,
        who(),
        { account: inbox.address, uid: filed.uid },
        { action: 'move', folder: 'Archive' },
      );
      move.catch(() => {});
      // Node a's sync waits for b's move to end (or, were it not held off, files the moved copy
      // in Archive meanwhile, as a message of its own).
      await eventually(
        async () => waited('node-a') || (await emailsIn('Archive')).some((e) => e.subject === 'Slow move'),
      );
      await holder.query('COMMIT');
      expect((await move).folder).toBe('Archive');
    } finally {
      await holder.end();
    }
    const after = new Date(Date.now() + 2 * FAST_IMAP.pollMs).toISOString();
    await eventually(async () => (await nodes[0]!.store.inboxes.get(inbox.id))!.last_sync_at! > after);
    const copies = (await emailsIn('Archive')).filter((e) => e.subject === 'Slow move');
    expect(copies.map((e) => e.uid)).toEqual([filed.uid]);
  });
});
