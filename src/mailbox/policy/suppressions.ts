import type { z } from '@hono/zod-openapi';
import type { Suppression } from '../../contract/lists.js';
import { readBounceReport } from '../../mail/bounce-report.js';
import type { InboxRow } from '../../store/inboxes.js';
import { nowIso } from '../../store/ids.js';
import type { Caller } from '../caller.js';
import { requirePermission } from '../caller.js';
import type { MailboxDeps } from '../deps.js';
import { NotFound } from '../errors.js';
import { recordInTransaction } from '../audit/audit-context.js';

export type SuppressionView = z.infer<typeof Suppression>;

/** The addresses the user's mail is no longer sent to, newest first. */
export async function listSuppressions(deps: MailboxDeps, caller: Caller): Promise<SuppressionView[]> {
  requirePermission(caller, 'read');
  return (await deps.store.suppressions.list(caller.userId)).map(({ address, reason, created_at }) => ({
    address,
    reason,
    created_at,
  }));
}

/** Lifts a suppression: the address may be sent to again. */
export async function liftSuppression(
  deps: MailboxDeps,
  caller: Caller,
  address: string,
): Promise<{ address: string; deleted: true }> {
  requirePermission(caller, 'manage');
  await deps.store.db.transaction(async () => {
    if (!(await deps.store.suppressions.remove(caller.userId, address))) {
      throw new NotFound(`${address} is not suppressed`);
    }
    await recordInTransaction(deps, caller.audit, { account: null, target: address });
  });
  return { address, deleted: true };
}

/**
 * Suppresses recipients a delivery failed for good (a 5xx, or a bounce DSN): the user's later
 * sends to them are refused. Call inside the transaction that records the failure.
 */
export async function suppressBounced(
  deps: MailboxDeps,
  userId: number,
  recipients: string[],
): Promise<void> {
  const addresses = [...new Set(recipients.map((r) => r.trim().toLowerCase()))];
  await deps.store.suppressions.add(userId, addresses, 'bounced', nowIso());
}

/**
 * A bounce report received by these inboxes (over SMTP or synced): the recipients it says failed
 * for good are suppressed for an inbox's user, but only those that inbox sent the returned
 * message to (by its Message-ID), so a forged report cannot silence other addresses.
 */
export async function suppressReported(deps: MailboxDeps, inboxes: InboxRow[], raw: Buffer): Promise<void> {
  const report = readBounceReport(raw);
  if (!report) return;
  for (const inbox of inboxes) {
    const sentTo = new Set(await deps.store.deliveries.recipientsOfSent(inbox.id, report.messageId));
    await suppressBounced(
      deps,
      inbox.user_id,
      report.failed.filter((address) => sentTo.has(address)),
    );
  }
}
