import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDb } from '../../src/db/postgres/db.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { testPostgres } from '../helpers/test-postgres.js';

const SECRET = 'webhook-locks-secret-0123456789abcdef';

// A webhook and its deliveries are changed together by two kinds of transaction: a user's
// disable (the webhook, then its pending deliveries) and the dispatcher's record of a failed
// attempt (the delivery, then the webhook's failure streak). Each must take the rows in the
// same order, or two of them at once on PostgreSQL deadlock (a CI run failed so).
describe('a webhook disabled while its dispatcher records an attempt, on PostgreSQL', () => {
  let url: string;
  let dbs: PostgresDb[];
  let stores: Store[];
  let userId: number;

  beforeAll(async () => {
    url = await (await testPostgres()).createDatabase();
    dbs = [await openPostgres(url), await openPostgres(url)];
    stores = dbs.map((db) => createStore(db, SECRET));
    userId = (await dbs[0]!.insert('users', { name: 'locks', created_at: 'now' })).lastInsertRowid;
  });

  afterAll(async () => {
    for (const db of dbs ?? []) await db.close();
    if (url) await (await testPostgres()).dropDatabase(url);
  });

  /** A webhook with `count` deliveries, each pending and due. */
  async function pendingDeliveries(count: number) {
    const [store] = stores;
    const webhook = await store!.webhooks.create({
      userId,
      url: 'http://127.0.0.1:9/hook',
      events: ['email.received'],
      accounts: null,
      includeSpam: false,
      description: null,
      secret: 'whsec_locks',
    });
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const { lastInsertRowid: seq } = await dbs[0]!.insert('events', {
        id: `evt_locks_${webhook.id}_${i}`,
        type: 'email.received',
        user_id: userId,
        inbox_id: null,
        payload: '{}',
        created_at: 'now',
      });
      const { lastInsertRowid: id } = await dbs[0]!.insert('webhook_deliveries', {
        webhook_id: webhook.id,
        event_seq: seq,
        status: 'pending',
        next_attempt_at: '2000-01-01T00:00:00.000Z',
        created_at: 'now',
        updated_at: 'now',
      });
      ids.push(id);
    }
    return { webhook, ids };
  }

  /** A webhook with `count` deliveries, each pending and claimed by the dispatcher. */
  async function claimedDeliveries(count: number) {
    const { webhook, ids } = await pendingDeliveries(count);
    expect(await stores[0]!.webhookDeliveries.claim(ids, 60_000)).toHaveLength(count);
    const claims = await dbs[0]!.rawAll<{ id: number; claim_id: string }>(
      `SELECT id, claim_id FROM webhook_deliveries WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`,
      ...ids,
    );
    return { webhook, claims };
  }

  it('fails the pending deliveries or records the attempt, never both waiting on each other', async () => {
    for (let round = 0; round < 40; round++) {
      const { webhook, claims } = await claimedDeliveries(3);
      const [dispatcher, user] = stores as [Store, Store];
      const at = new Date();
      const record = dispatcher.db.transaction(async () => {
        for (const { id, claim_id } of claims) {
          await dispatcher.webhookDeliveries.recordAttempt({
            deliveryId: Number(id),
            claimId: claim_id,
            webhookId: webhook.id,
            statusCode: 500,
            error: null,
            durationMs: 1,
            at,
            request: { url: webhook.url, headers: {} },
            response: { excerpt: '', bytes: 0 },
            outcome: { status: 'pending', nextAttemptAt: new Date(at.getTime() + 60_000) },
            // As the dispatcher says for a failure: its streak is written next.
            changesWebhook: true,
          });
          await dispatcher.webhooks.markFailing(webhook.id, at);
        }
      });
      const disable = user.webhooks.update(userId, webhook.id, { status: 'disabled' }, at);
      await Promise.all([record, disable]);
      const rows = await dbs[0]!.rawAll<{ status: string }>(
        'SELECT status FROM webhook_deliveries WHERE webhook_id = ?',
        webhook.id,
      );
      // Whichever went first, the webhook ends disabled with nothing left pending.
      expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
      expect((await user.webhooks.get(userId, webhook.id))?.status).toBe('disabled');
    }
  });

  // A claim takes several deliveries in one statement; a disable updates them too, in its own
  // order. A claim that waited for a row another transaction holds could close a cycle with it:
  // it takes what it can and leaves the rest for a later pass.
  it('claims what no other transaction holds, without waiting for the rest', async () => {
    const { ids } = await pendingDeliveries(2);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [ids[0]]);
      const claim = stores[0]!.webhookDeliveries.claim(ids, 60_000);
      const waited = waitingOnALock(holder);
      const first = await Promise.race([claim, waited.then((seen) => seen && 'waited on the held row')]);
      waited.cancel();
      await holder.query('ROLLBACK');
      expect(first).toEqual([ids[1]]);
      expect(await stores[0]!.webhookDeliveries.claim(ids, 60_000)).toEqual([ids[0]]);
    } finally {
      await holder.end();
    }
  });
});

/**
 * Resolves true once another backend of the holder's database waits on a lock; `cancel` stops
 * looking (it then resolves false).
 */
function waitingOnALock(holder: pg.Client): Promise<boolean> & { cancel: () => void } {
  let cancelled = false;
  const found = (async () => {
    while (!cancelled) {
      const { rows } = await holder.query(
        `SELECT 1 FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
      );
      if (rows.length > 0) return true;
      await new Promise((r) => setTimeout(r, 10));
    }
    return false;
  })();
  return Object.assign(found, { cancel: () => (cancelled = true) });
}
