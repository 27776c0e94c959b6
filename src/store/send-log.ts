import type { Db } from '../db/connection.js';
import { nowIso } from './ids.js';

/** The longest window anything counts over (the day limit): older rows are pruned. */
const KEPT_MS = 24 * 60 * 60 * 1000;

/**
 * The send counters (contract 14): one row per recipient of each message an inbox sent, what the
 * send limits, the loop guard and the settings' `sent` count. Every call that decides a send is
 * made inside the send's transaction after `hold`, so two sends (on two nodes) cannot both pass
 * on the same count.
 */
export class SendLogStore {
  constructor(private readonly db: Db) {}

  /**
   * Holds the inbox's row until the transaction ends, so another transaction counting for this
   * inbox waits for this one's rows. SQLite's transaction already holds the whole database.
   */
  async hold(inboxId: number): Promise<void> {
    if (!this.db.dialect.rowLocks) return;
    await this.db.rawFirst('SELECT id FROM inboxes WHERE id = ? FOR UPDATE', inboxId);
  }

  /** Recipients the inbox sent to after `hourAgo` and after `dayAgo`. */
  async counts(inboxId: number, hourAgo: Date, dayAgo: Date): Promise<{ lastHour: number; lastDay: number }> {
    const row = (await this.db.rawFirst(
      `SELECT COALESCE(SUM(CASE WHEN sent_at > ? THEN 1 ELSE 0 END), 0) AS hour, COUNT(*) AS day
         FROM send_log WHERE inbox_id = ? AND sent_at > ?`,
      nowIso(hourAgo),
      inboxId,
      nowIso(dayAgo),
    )) as { hour: number | string; day: number | string };
    return { lastHour: Number(row.hour), lastDay: Number(row.day) };
  }

  /** For each of `addresses` the inbox sent to after `since`: how many messages, and the newest. */
  async perAddress(
    inboxId: number,
    addresses: string[],
    since: Date,
  ): Promise<Map<string, { count: number; newest: string }>> {
    const rows = await this.db.rawAll<{ address: string; n: number | string; newest: string }>(
      `SELECT address, COUNT(*) AS n, MAX(sent_at) AS newest FROM send_log
        WHERE inbox_id = ? AND address IN (${addresses.map(() => '?').join(', ')}) AND sent_at > ?
        GROUP BY address`,
      inboxId,
      ...addresses,
      nowIso(since),
    );
    return new Map(rows.map((r) => [r.address, { count: Number(r.n), newest: r.newest }]));
  }

  /**
   * When the `position`-th oldest row sent after `since` was sent (1 the oldest), of one address
   * or of all: the moment the window drops it.
   */
  async nthSince(
    inboxId: number,
    since: Date,
    position: number,
    address?: string,
  ): Promise<string | undefined> {
    let q = this.db.kysely
      .selectFrom('send_log')
      .select('sent_at')
      .where('inbox_id', '=', inboxId)
      .where('sent_at', '>', nowIso(since));
    if (address !== undefined) q = q.where('address', '=', address);
    const row = await this.db.first(
      q
        .orderBy('sent_at')
        .orderBy('id')
        .limit(1)
        .offset(position - 1),
    );
    return row?.sent_at;
  }

  /** Counts one message's recipients (each address once). */
  async record(inboxId: number, addresses: string[], at: Date): Promise<void> {
    if (addresses.length === 0) return;
    const sentAt = nowIso(at);
    await this.db.rawRun(
      `INSERT INTO send_log (inbox_id, address, sent_at) VALUES ${addresses.map(() => '(?, ?, ?)').join(', ')}`,
      ...addresses.flatMap((address) => [inboxId, address, sentAt]),
    );
  }

  /** Drops the rows no window reaches any more (older than a day); how many. */
  async prune(now: Date): Promise<number> {
    const { changes } = await this.db.rawRun(
      'DELETE FROM send_log WHERE sent_at <= ?',
      nowIso(new Date(now.getTime() - KEPT_MS)),
    );
    return changes;
  }

  /** Un-counts the message counted at `at` (a connected mailbox's server refused it). */
  async forget(inboxId: number, at: Date): Promise<void> {
    await this.db.run(
      this.db.kysely.deleteFrom('send_log').where('inbox_id', '=', inboxId).where('sent_at', '=', nowIso(at)),
    );
  }

  /** When the loop guard last raised its event for this address, if ever. */
  async loopAlertAt(inboxId: number, address: string): Promise<string | undefined> {
    const row = await this.db.first(
      this.db.kysely
        .selectFrom('loop_alerts')
        .select('raised_at')
        .where('inbox_id', '=', inboxId)
        .where('address', '=', address),
    );
    return row?.raised_at;
  }

  async setLoopAlert(inboxId: number, address: string, at: Date): Promise<void> {
    const raised_at = nowIso(at);
    await this.db.run(
      this.db.kysely
        .insertInto('loop_alerts')
        .values({ inbox_id: inboxId, address, raised_at })
        .onConflict((oc) => oc.columns(['inbox_id', 'address']).doUpdateSet({ raised_at })),
    );
  }
}
