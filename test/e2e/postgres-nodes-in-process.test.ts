import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import type { PostgresDb } from '../../src/db/postgres/db.js';
import { ownerCaller } from '../../src/mailbox/caller.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { receiveMessage } from '../../src/mailbox/ingest/receive.js';
import { addDomain, addLocalInbox, addUser } from '../../src/mailbox/operations/admin.js';
import { deleteEmail } from '../../src/mailbox/organising/organise.js';
import { createTrashSweep } from '../../src/mailbox/organising/trash-sweep.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import { buildDeps } from '../../src/mailbox/runtime.js';
import { sendEmail } from '../../src/mailbox/sending/send.js';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { createStore } from '../../src/store/index.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { eventually } from '../helpers/server.js';
import { rawMessage } from '../helpers/smtp-session.js';
import { testPostgres } from '../helpers/test-postgres.js';

const DAY = 24 * 60 * 60 * 1000;
const ROUNDS = 10;

/** Two nodes' verbs in this process, each with its own pool and MAILROOM_NODE_ID, on one database. */
describe('two nodes on one PostgreSQL: background jobs and the order of uid locks', () => {
  let url: string;
  const dbs: PostgresDb[] = [];
  let nodes: MailboxDeps[];
  let one: InboxRow;
  let two: InboxRow;

  beforeAll(async () => {
    url = await (await testPostgres()).createDatabase({ migrated: true });
    nodes = [];
    for (const id of ['node-a', 'node-b']) {
      const db = await openPostgres(url, { max: 4 });
      dbs.push(db);
      nodes.push(
        buildDeps({
          mode: 'cli',
          store: createStore(db, 'a test secret of enough length'),
          config: loadConfig({ dataDir: '/nonexistent', nodeId: id, trashDays: 30 }),
          log: pino({ level: 'silent' }),
        }),
      );
    }
    const deps = nodes[0]!;
    await addDomain(deps, 'nodes.test');
    await addUser(deps, 'owner');
    one = await addLocalInbox(deps, 'one@nodes.test', 'owner');
    two = await addLocalInbox(deps, 'two@nodes.test', 'owner');
  });
  afterAll(async () => Promise.all(dbs.map((db) => db.close())));

  const who = () => ownerCaller(one.user_id);
  let counter = 0;
  /** A message into inbox one, moved to Trash; its uid. */
  const trashed = async (): Promise<number> => {
    const raw = rawMessage({ from: 'a@example.com', to: one.address, subject: `Old ${++counter}` });
    const [filed] = await receiveMessage(nodes[0]!, { raw: Buffer.from(raw), inboxes: [one] });
    await deleteEmail(nodes[0]!, who(), { account: one.address, uid: filed!.uid });
    return filed!.uid;
  };
  const inTrash = async () =>
    (await listEmails(nodes[0]!, who(), ListEmailsQuery.parse({ account: one.address, folder: 'Trash' })))
      .emails.length;
  /** Node `i`'s Trash sweep, believing it is 31 days from now, its interval `intervalMs`. */
  const sweep = (i: number, intervalMs?: number) =>
    createTrashSweep(nodes[i]!, {
      now: () => new Date(Date.now() + 31 * DAY),
      ...(intervalMs ? { intervalMs } : {}),
    }).sweepOnce();

  it('sweeps Trash on one node an interval: another node skips it until that interval has passed', async () => {
    await trashed();
    expect(await sweep(0)).toBe(1);
    await trashed();
    // Node b's turn comes within the hour node a swept in: a's sweep stands for it.
    expect(await sweep(1)).toBe(0);
    expect(await inTrash()).toBe(1);
    // Node a takes its own next turn.
    expect(await sweep(0)).toBe(1);
    expect(await inTrash()).toBe(0);
  });

  it('lets another node sweep once the holder has not swept for its interval (it died)', async () => {
    await trashed();
    expect(await sweep(0, 200)).toBe(1);
    await trashed();
    await eventually(async () => (await sweep(1, 200)) === 1, 30_000);
    expect(await inTrash()).toBe(0);
  });

  it('sends between two inboxes both ways on two nodes at once without a deadlock', async () => {
    const deadlocks = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ deadlocks: string }>(
          'SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()',
        );
        return Number(rows[0]!.deadlocks);
      } finally {
        await client.end();
      }
    };
    const before = await deadlocks();
    const send = (node: number, from: InboxRow, to: InboxRow[], i: number) =>
      sendEmail(nodes[node]!, who(), {
        from: from.address,
        to: to.map((inbox) => inbox.address),
        subject: `Crossed ${i}`,
        text: 'both ways',
      });
    const arrive = (node: number, inboxes: InboxRow[], i: number) =>
      receiveMessage(nodes[node]!, {
        raw: Buffer.from(rawMessage({ from: 'a@example.com', to: one.address, subject: `Both ${i}` })),
        inboxes,
      });
    for (let i = 0; i < ROUNDS; i++) {
      await Promise.all([
        send(0, one, [two], i),
        send(1, two, [one], i),
        arrive(0, [one, two], i),
        arrive(1, [two, one], i),
      ]);
    }
    // Every backend's counts are written when it ends: close the pools, then read.
    await Promise.all(dbs.splice(0).map((db) => db.close()));
    expect(await deadlocks()).toBe(before);
  });
});
