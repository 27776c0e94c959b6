import type { Db } from '../db/connection.js';
import { newId } from './ids.js';

export interface NodeRow {
  id: string;
  version: string;
  started_at: string;
  last_seen_at: string;
}

export interface LeaseRow {
  name: string;
  node_id: string;
  claim_id: string;
  expires_at: string;
}

/**
 * The nodes sharing the database (their heartbeats) and the leases through which one of them at
 * a time does a piece of work (contract 11). Every time is read off the database's clock, so
 * nodes whose clocks disagree still agree on who holds what.
 */
export class NodeStore {
  constructor(private readonly db: Db) {}

  /** Writes this node's heartbeat (inserting its row on the first). */
  async beat(id: string, version: string, startedAt: string): Promise<void> {
    const { clockPlusMs } = this.db.dialect;
    await this.db.rawRun(
      `INSERT INTO nodes (id, version, started_at, last_seen_at) VALUES (?, ?, ?, ${clockPlusMs})
       ON CONFLICT (id) DO UPDATE SET version = excluded.version, last_seen_at = excluded.last_seen_at`,
      id,
      version,
      startedAt,
      0,
    );
  }

  /** Nodes seen within `withinMs`, oldest start first; rows older than `forgetMs` are removed. */
  async live(withinMs: number, forgetMs: number): Promise<NodeRow[]> {
    const { clockPlusMs } = this.db.dialect;
    await this.db.rawRun(`DELETE FROM nodes WHERE last_seen_at < ${clockPlusMs}`, -forgetMs);
    return await this.db.rawAll<NodeRow>(
      `SELECT id, version, started_at, last_seen_at FROM nodes WHERE last_seen_at >= ${clockPlusMs}
        ORDER BY started_at, id`,
      -withinMs,
    );
  }

  async remove(id: string): Promise<void> {
    await this.db.run(this.db.kysely.deleteFrom('nodes').where('id', '=', id));
    await this.db.run(this.db.kysely.deleteFrom('leases').where('node_id', '=', id));
  }

  /**
   * Takes lease `name` for `nodeId` for `ttlMs` when nobody holds it, its holder let it expire,
   * or its holder had this node's id (a restart after a crash); answers the new claim id, or null
   * when another node holds it.
   */
  async acquire(name: string, nodeId: string, ttlMs: number): Promise<string | null> {
    const { clockPlusMs } = this.db.dialect;
    const claimId = newId('lse');
    const row = await this.db.rawFirst<{ claim_id: string }>(
      `INSERT INTO leases (name, node_id, claim_id, expires_at) VALUES (?, ?, ?, ${clockPlusMs})
       ON CONFLICT (name) DO UPDATE SET node_id = excluded.node_id, claim_id = excluded.claim_id,
              expires_at = excluded.expires_at
        WHERE leases.expires_at < ${clockPlusMs} OR leases.node_id = excluded.node_id
       RETURNING claim_id`,
      name,
      nodeId,
      claimId,
      ttlMs,
      0,
    );
    return row?.claim_id === claimId ? claimId : null;
  }

  /** Extends a lease still held under `claimId`; false when it was lost (expired and taken). */
  async renew(name: string, claimId: string, ttlMs: number): Promise<boolean> {
    const { clockPlusMs } = this.db.dialect;
    const result = await this.db.rawRun(
      `UPDATE leases SET expires_at = ${clockPlusMs} WHERE name = ? AND claim_id = ? AND expires_at >= ${clockPlusMs}`,
      ttlMs,
      name,
      claimId,
      0,
    );
    return result.changes > 0;
  }

  async release(name: string, claimId: string): Promise<void> {
    await this.db.run(
      this.db.kysely.deleteFrom('leases').where('name', '=', name).where('claim_id', '=', claimId),
    );
  }

  /**
   * Whether the lease is still held under `claimId` and unexpired. Inside a transaction on
   * PostgreSQL the row is locked FOR SHARE, so no other node can take it until that commits:
   * what the transaction writes is written by the holder (fencing).
   */
  async holds(name: string, claimId: string): Promise<boolean> {
    const { clockPlusMs, rowLocks } = this.db.dialect;
    const row = await this.db.rawFirst<{ name: string }>(
      `SELECT name FROM leases WHERE name = ? AND claim_id = ? AND expires_at >= ${clockPlusMs}${rowLocks ? ' FOR SHARE' : ''}`,
      name,
      claimId,
      0,
    );
    return row !== undefined;
  }

  /** Unexpired leases whose name starts with `prefix`, by node. */
  async held(prefix: string): Promise<LeaseRow[]> {
    const { clockPlusMs } = this.db.dialect;
    return await this.db.rawAll<LeaseRow>(
      `SELECT name, node_id, claim_id, expires_at FROM leases WHERE name LIKE ? AND expires_at >= ${clockPlusMs} ORDER BY name`,
      `${prefix}%`,
      0,
    );
  }
}
