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
    const newest = await this.newestTotal(inboxId);
    return {
      lastHour: await this.countSince(newest, 'inbox_total', hourAgo, inboxId),
      lastDay: await this.countSince(newest, 'inbox_total', dayAgo, inboxId),
    };
  }

  /** For each of `addresses` the inbox sent to after `since`: how many messages, and the newest. */
  async perAddress(
    inboxId: number,
    addresses: string[],
    since: Date,
  ): Promise<Map<string, { count: number; newest: string }>> {
    const out = new Map<string, { count: number; newest: string }>();
    for (const address of new Set(addresses)) {
      const newest = await this.newestOfAddress(inboxId, address);
      const count = await this.countSince(newest, 'address_total', since, inboxId, address);
      if (count > 0) out.set(address, { count, newest: newest!.sent_at });
    }
    return out;
  }

  /** The newest row of one address by its running total (the last counted), if any. */
  private newestOfAddress(inboxId: number, address: string) {
    return this.db.rawFirst<{ total: number | string; sent_at: string }>(
      `SELECT address_total AS total, sent_at FROM send_log
        WHERE inbox_id = ? AND address = ? ORDER BY address_total DESC LIMIT 1`,
      inboxId,
      address,
    );
  }

  /** The inbox's newest row by its running total (the last counted), if any. */
  private newestTotal(inboxId: number) {
    return this.db.rawFirst<{ total: number | string }>(
      'SELECT inbox_total AS total FROM send_log WHERE inbox_id = ? ORDER BY inbox_total DESC LIMIT 1',
      inboxId,
    );
  }

  /**
   * Rows after `since`, of the inbox or of one address: the newest total minus the total of the
   * first row in the window, plus one. Totals grow with sent_at (rows are counted under the
   * inbox's lock, at its time), so this is the count a scan would give, in two index look-ups.
   */
  private async countSince(
    newest: { total: number | string } | undefined,
    column: 'inbox_total' | 'address_total',
    since: Date,
    inboxId: number,
    address?: string,
  ): Promise<number> {
    if (!newest) return 0;
    const first = await this.db.rawFirst<{ total: number | string }>(
      `SELECT ${column} AS total FROM send_log
        WHERE inbox_id = ?${address === undefined ? '' : ' AND address = ?'} AND sent_at > ?
        ORDER BY sent_at, ${column} LIMIT 1`,
      ...(address === undefined ? [inboxId] : [inboxId, address]),
      nowIso(since),
    );
    return first ? Number(newest.total) - Number(first.total) + 1 : 0;
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

  /** Counts one message's recipients (each address once), each row with its running totals. */
  async record(inboxId: number, addresses: string[], at: Date): Promise<void> {
    if (addresses.length === 0) return;
    const sentAt = nowIso(at);
    let inboxTotal = Number((await this.newestTotal(inboxId))?.total ?? 0);
    const addressTotals = new Map<string, number>();
    const rows: unknown[] = [];
    for (const address of addresses) {
      let total = addressTotals.get(address);
      total ??= Number((await this.newestOfAddress(inboxId, address))?.total ?? 0);
      addressTotals.set(address, ++total);
      rows.push(inboxId, address, sentAt, ++inboxTotal, total);
    }
    await this.db.rawRun(
      `INSERT INTO send_log (inbox_id, address, sent_at, inbox_total, address_total)
       VALUES ${addresses.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      ...rows,
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

  /**
   * Un-counts the message counted at `at` (a connected mailbox's server refused it): its rows go,
   * and the rows counted after them keep totals that run on without a gap.
   */
  async forget(inboxId: number, at: Date): Promise<void> {
    await this.db.transaction(async () => {
      await this.hold(inboxId);
      const gone = await this.db.rawAll<{
        id: number;
        address: string;
        inbox_total: number;
        address_total: number;
      }>(
        'SELECT id, address, inbox_total, address_total FROM send_log WHERE inbox_id = ? AND sent_at = ? ORDER BY inbox_total DESC',
        inboxId,
        nowIso(at),
      );
      for (const row of gone) {
        await this.db.rawRun('DELETE FROM send_log WHERE id = ?', row.id);
        await this.db.rawRun(
          'UPDATE send_log SET inbox_total = inbox_total - 1 WHERE inbox_id = ? AND inbox_total > ?',
          inboxId,
          row.inbox_total,
        );
        await this.db.rawRun(
          'UPDATE send_log SET address_total = address_total - 1 WHERE inbox_id = ? AND address = ? AND address_total > ?',
          inboxId,
          row.address,
          row.address_total,
        );
      }
    });
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
