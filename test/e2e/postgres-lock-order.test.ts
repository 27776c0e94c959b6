import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/postgres/open.js';
import type { PostgresDb } from '../../src/db/postgres/db.js';
import { parseEmail } from '../../src/mail/parse.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { fileForEach } from '../../src/mailbox/ingest/receive.js';
import type { EventRow } from '../../src/store/events.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { rawMessage } from '../helpers/smtp-session.js';
import { testPostgres } from '../helpers/test-postgres.js';

const ROUNDS = 25;

// Filing a message takes its inbox's uid row lock; appending its event takes the event lock
// (events.seq in commit order). A message for two inboxes does both twice: it holds the event
// lock when it asks for the second inbox's uid. A message filed at the same time into that second
// inbox alone (another node, or an IMAP sync beside a group commit) holds that uid and asks for
// the event lock: a deadlock, unless every transaction takes the event lock last (PostgreSQL
// breaks a deadlock after deadlock_timeout, 1 s, and it surfaced as 503 / 451).
describe('lock order on PostgreSQL: uid row locks, then the event lock', () => {
  const dbs: PostgresDb[] = [];
  let nodes: Store[];
  let inboxes: InboxRow[];

  beforeAll(async () => {
    const url = await (await testPostgres()).createDatabase();
    for (let i = 0; i < 2; i++) dbs.push(await openPostgres(url, { max: 4 }));
    nodes = dbs.map((db) => createStore(db, 'lock-order-test-secret'));
    const user = await nodes[0]!.users.create('racer');
    inboxes = [
      await nodes[0]!.inboxes.create({ address: 'one@race.test', userId: user.id, kind: 'local' }),
      await nodes[0]!.inboxes.create({ address: 'two@race.test', userId: user.id, kind: 'local' }),
    ];
  });

  afterAll(async () => Promise.all(dbs.map((db) => db.close())));

  it('files messages for two inboxes, and for the second alone, on two nodes at once without a deadlock', async () => {
    const raw = Buffer.from(rawMessage({ from: 'a@example.com', to: 'one@race.test', subject: 'race' }));
    const parsed = await parseEmail(raw);
    const file = (store: Store, order: InboxRow[]) => {
      const events: EventRow[] = [];
      const deps = { store } as MailboxDeps;
      return store.db.transaction(() => fileForEach(deps, { raw, inboxes: order }, parsed, events));
    };
    const failures: unknown[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const results = await Promise.allSettled([
        file(nodes[0]!, [inboxes[0]!, inboxes[1]!]),
        file(nodes[1]!, [inboxes[1]!]),
        file(nodes[1]!, [inboxes[0]!, inboxes[1]!]),
        file(nodes[0]!, [inboxes[1]!]),
      ]);
      for (const r of results) if (r.status === 'rejected') failures.push(r.reason);
    }
    expect(failures.map(String)).toEqual([]);
    // Every copy filed, with distinct uids, each with its event.
    const filed = [ROUNDS * 2, ROUNDS * 4];
    for (const [i, inbox] of inboxes.entries()) {
      const uids = await dbs[0]!.rawAll<{ uid: number }>(
        'SELECT uid FROM messages WHERE inbox_id = ? ORDER BY uid',
        inbox.id,
      );
      expect(uids.map((r) => r.uid)).toEqual(Array.from({ length: filed[i]! }, (_, n) => n + 1));
    }
    const events = await dbs[0]!.rawAll<{ n: number }>('SELECT count(*) AS n FROM events');
    expect(events[0]!.n).toBe(ROUNDS * 6);
  }, 180_000);
});
