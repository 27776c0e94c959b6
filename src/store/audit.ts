import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import { EVENT_APPEND_LOCK_KEY } from '../db/postgres/lock-keys.js';
import type { AuditLogTable } from '../db/schema.js';
import { sha256Hex } from './ids.js';

export type AuditRow = Selectable<AuditLogTable>;

/** A record as the contract shows it, without its hash: what the hash covers. */
export interface AuditFields {
  id: string;
  at: string;
  actor: { kind: string; id: string | null };
  door: string;
  action: string;
  account: string | null;
  target: string | null;
  outcome: string;
  requestId: string | null;
}

/** A record to append, and whose trail it is (null: an admin action on no user). */
export interface AuditEntry extends AuditFields {
  userId: number | null;
}

/** The previous hash of the first record ever written. */
export const GENESIS_HASH = '0'.repeat(64);

/** JSON with every object's keys sorted and no spaces: the form the hash is taken of. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** Contract 15: hex SHA-256 of the previous hash, a newline and the record as canonical JSON. */
export function auditHash(previous: string, fields: AuditFields): string {
  return sha256Hex(`${previous}\n${canonicalJson(fields)}`);
}

export function fieldsOfRow(row: AuditRow): AuditFields {
  return {
    id: row.id,
    at: row.at,
    actor: { kind: row.actor_kind, id: row.actor_id },
    door: row.door,
    action: row.action,
    account: row.account,
    target: row.target,
    outcome: row.outcome,
    requestId: row.request_id,
  };
}

export interface AuditQuery {
  /** Whose records: one user's, or every user's (the admin API) when undefined. */
  userId?: number;
  /** Only these inboxes' records and the user-wide ones (a key limited to some inboxes). */
  reach?: readonly string[];
  account?: string;
  since?: string;
  action?: string;
  outcome?: string;
  actorId?: string;
  /** Records older than this seq (the cursor). */
  beforeSeq?: number;
  limit: number;
}

/**
 * The audit trail. Appends are serialised so the chain never forks: on PostgreSQL under the
 * event append lock, taken just before COMMIT (Db.writeAtCommit), so it is the last lock a
 * transaction takes, as the events' own; on SQLite the write transaction already serialises.
 */
export class AuditStore {
  constructor(private readonly db: Db) {}

  /** Appends in the caller's transaction, or in one of its own. */
  async append(entry: AuditEntry): Promise<void> {
    await this.db.transaction(async () => {
      if (!this.db.writeAtCommit(this.write, entry)) await this.write([entry]);
    });
  }

  private readonly write = async (entries: AuditEntry[]): Promise<void> => {
    if (this.db.engine === 'postgres')
      await this.db.rawRun('SELECT pg_advisory_xact_lock(?)', EVENT_APPEND_LOCK_KEY);
    const head = await this.db.rawFirst<{ hash: string }>(
      'SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1',
    );
    let previous = head?.hash ?? GENESIS_HASH;
    const rows = entries.map(({ userId, ...fields }) => {
      const hash = auditHash(previous, fields);
      const row = {
        id: fields.id,
        at: fields.at,
        user_id: userId,
        actor_kind: fields.actor.kind,
        actor_id: fields.actor.id,
        door: fields.door,
        action: fields.action,
        account: fields.account,
        target: fields.target,
        outcome: fields.outcome,
        request_id: fields.requestId,
        prev_hash: previous,
        hash,
      };
      previous = hash;
      return row;
    });
    if (rows.length === 1) await this.db.insert('audit_log', rows[0]!);
    else await this.db.run(this.db.kysely.insertInto('audit_log').values(rows));
  };

  /** Newest first. */
  async list(query: AuditQuery): Promise<AuditRow[]> {
    let q = this.db.kysely.selectFrom('audit_log').selectAll();
    if (query.userId !== undefined) q = q.where('user_id', '=', query.userId);
    const reach = query.reach;
    if (reach !== undefined)
      q = q.where((eb) =>
        eb.or([eb('account', 'is', null), ...(reach.length ? [eb('account', 'in', [...reach])] : [])]),
      );
    if (query.account !== undefined) q = q.where('account', '=', query.account);
    if (query.since !== undefined) q = q.where('at', '>=', query.since);
    if (query.action !== undefined) q = q.where('action', '=', query.action);
    if (query.outcome !== undefined) q = q.where('outcome', '=', query.outcome);
    if (query.actorId !== undefined) q = q.where('actor_id', '=', query.actorId);
    if (query.beforeSeq !== undefined) q = q.where('seq', '<', query.beforeSeq);
    return await this.db.all(q.orderBy('seq', 'desc').limit(query.limit));
  }

  /** The whole chain, oldest first, `limit` records after `afterSeq`. */
  async chain(afterSeq: number, limit: number): Promise<AuditRow[]> {
    return await this.db.all(
      this.db.kysely
        .selectFrom('audit_log')
        .selectAll()
        .where('seq', '>', afterSeq)
        .orderBy('seq', 'asc')
        .limit(limit),
    );
  }

  /**
   * Deletes every record up to the newest one older than `before`: always a prefix of the chain,
   * so what is kept still links up (its oldest record's prev_hash is taken as given).
   */
  async prune(before: string): Promise<number> {
    const last = await this.db.first(
      this.db.kysely
        .selectFrom('audit_log')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .where('at', '<', before),
    );
    if (last?.seq === null || last?.seq === undefined) return 0;
    const { changes } = await this.db.run(
      this.db.kysely.deleteFrom('audit_log').where('seq', '<=', Number(last.seq)),
    );
    return changes;
  }
}
