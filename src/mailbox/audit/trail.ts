import type { z } from '@hono/zod-openapi';
import type { AuditList, AuditQuery as AuditQuerySchema, AuditRecord } from '../../contract/audit.js';
import type { AuditQuery, AuditRow } from '../../store/audit.js';
import { auditHash, fieldsOfRow } from '../../store/audit.js';
import { nowIso } from '../../store/ids.js';
import type { Caller } from '../caller.js';
import { requirePermission } from '../caller.js';
import type { MailboxDeps } from '../deps.js';
import { requireInbox } from '../access.js';
import { decodeCursor, encodeCursor } from '../reading/cursor.js';

export type AuditRecordView = z.infer<typeof AuditRecord>;
export type AuditListView = z.infer<typeof AuditList>;
export type AuditFilter = z.output<typeof AuditQuerySchema>;

const CURSOR_KIND = 'audit';
const DAY_MS = 24 * 60 * 60 * 1000;

function viewOf(row: AuditRow): AuditRecordView {
  return { ...fieldsOfRow(row), hash: row.hash } as AuditRecordView;
}

async function page(
  deps: MailboxDeps,
  filter: AuditFilter,
  scope: Partial<AuditQuery>,
): Promise<AuditListView> {
  const rows = await deps.store.audit.list({
    ...scope,
    ...(filter.account !== undefined ? { account: filter.account.trim().toLowerCase() } : {}),
    ...(filter.since !== undefined ? { since: filter.since } : {}),
    ...(filter.action !== undefined ? { action: filter.action } : {}),
    ...(filter.outcome !== undefined ? { outcome: filter.outcome } : {}),
    ...(filter.key !== undefined ? { actorId: filter.key } : {}),
    ...(filter.cursor !== undefined ? { beforeSeq: decodeCursor(filter.cursor, CURSOR_KIND) } : {}),
    limit: filter.limit + 1,
  });
  const more = rows.length > filter.limit;
  const shown = more ? rows.slice(0, filter.limit) : rows;
  return {
    records: shown.map(viewOf),
    nextCursor: more ? encodeCursor(CURSOR_KIND, shown[shown.length - 1]!.seq) : null,
  };
}

/**
 * GET /api/v1/audit: the caller's user's records, newest first. A key limited to some inboxes
 * sees those inboxes' records and the user-wide ones (account null); naming an inbox beyond its
 * reach is 403 as anywhere else. An inbox since removed may still be named by an unlimited key.
 */
export async function listAudit(
  deps: MailboxDeps,
  caller: Caller,
  filter: AuditFilter,
): Promise<AuditListView> {
  requirePermission(caller, 'manage');
  // Named, the inbox must be the caller's now, as on every route (403 alike for another user's
  // and for none, so the answer tells nobody which addresses exist); a removed inbox's records
  // are still in the list without `account`.
  if (filter.account !== undefined) await requireInbox(deps, caller, filter.account);
  return page(deps, filter, {
    userId: caller.userId,
    ...(caller.inboxes !== null ? { reach: caller.inboxes } : {}),
  });
}

/** GET /admin/v1/audit: every user's records (and those of admin actions on no user). */
export function listAllAudit(deps: MailboxDeps, filter: AuditFilter): Promise<AuditListView> {
  return page(deps, filter, {});
}

export type AuditVerdict =
  | { whole: true; records: number }
  | { whole: false; records: number; firstBad: string };

const VERIFY_PAGE = 1000;

/**
 * Walks the chain from the oldest kept record: each must hash to its stored hash from its
 * previous hash, and each previous hash must be the hash of the record before it (the oldest
 * kept record's previous hash is taken as given: the records before it were pruned).
 */
export async function verifyAudit(deps: MailboxDeps): Promise<AuditVerdict> {
  let after = 0;
  let previous: string | null = null;
  let records = 0;
  for (;;) {
    const rows = await deps.store.audit.chain(after, VERIFY_PAGE);
    for (const row of rows) {
      records += 1;
      const linked = previous === null || row.prev_hash === previous;
      if (!linked || auditHash(row.prev_hash, fieldsOfRow(row)) !== row.hash)
        return { whole: false, records, firstBad: row.id };
      previous = row.hash;
    }
    if (rows.length < VERIFY_PAGE) return { whole: true, records };
    after = rows[rows.length - 1]!.seq;
  }
}

/** Deletes the records older than MAILROOM_AUDIT_RETENTION_DAYS (the oldest first, whole prefix). */
export async function pruneAudit(deps: MailboxDeps, now: Date): Promise<number> {
  const cutoff = nowIso(new Date(now.getTime() - deps.config.auditRetentionDays * DAY_MS));
  return deps.store.audit.prune(cutoff);
}
