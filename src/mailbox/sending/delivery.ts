import { enhancedStatus } from '../../mail/dsn.js';
import type { OutboundOptions } from '../../outbound/options.js';
import { resolveOutboundOptions } from '../../outbound/options.js';
import type { DeliveryJob, Settled } from '../../outbound/worker.js';
import { OutboundWorker } from '../../outbound/worker.js';
import type { EventRow } from '../../store/events.js';
import type { BounceNotice } from './bounce.js';
import { fileBounce, prepareBounce } from './bounce.js';
import type { MailboxDeps } from '../deps.js';
import { suppressBounced } from '../policy/suppressions.js';

/** The outbound queue worker, wired to record its outcomes through the mailbox (bounces, events). */
export function createDeliveryWorker(deps: MailboxDeps, options?: OutboundOptions): OutboundWorker {
  return new OutboundWorker(deps, resolveOutboundOptions(options), (job, settled, at) =>
    settleDeliveries(deps, job, settled, at),
  );
}

/**
 * Records an attempt: each row's new status, the sent Email's `delivery` cache, and for
 * recipients failed for good a DSN in the sender's INBOX with an `email.bounced` event and,
 * where a server refused them for good (5xx, not a retry given up), a suppression for the
 * sender's user; all in one transaction. Rows settled meanwhile (or deleted with their message),
 * or taken again under another claim after this one's lease ran out, are left alone.
 */
export async function settleDeliveries(
  deps: MailboxDeps,
  job: DeliveryJob,
  settled: Settled[],
  at: Date,
): Promise<void> {
  const { store } = deps;
  const failed = settled.filter((s) => s.decision.status === 'failed');
  const bounce = failed.length > 0 ? await bounceFor(deps, job, failed, at) : null;
  const events: EventRow[] = [];
  await store.groupCommit.submit(async () => {
    events.length = 0;
    const changed: Settled[] = [];
    for (const s of settled) {
      const updated = await store.deliveries.settle(
        s.row.id,
        s.row.claim_id!,
        {
          status: s.decision.status,
          nextAttemptAt: s.decision.nextAttemptAt,
          lastError: s.decision.error,
          remoteMta: s.outcome.remoteMta,
        },
        at,
      );
      if (updated) changed.push(s);
    }
    if (changed.length === 0) return;
    await store.deliveries.syncMessageCache(job.messageId);
    const refused = changed.filter((s) => s.decision.status === 'failed' && !s.decision.expired);
    const sender = refused.length > 0 ? await store.inboxes.get(job.inboxId) : undefined;
    if (sender)
      await suppressBounced(
        deps,
        sender.user_id,
        refused.map((s) => s.row.recipient),
      );
    const bouncedNow = bounce && changed.some((s) => s.decision.status === 'failed');
    if (bouncedNow) events.push(...(await fileBounce(deps, bounce, job.messageId)));
  });
  deps.bus.publish(events);
}

async function bounceFor(
  deps: MailboxDeps,
  job: DeliveryJob,
  failed: Settled[],
  at: Date,
): Promise<BounceNotice | null> {
  const { store } = deps;
  const inbox = await store.inboxes.get(job.inboxId);
  const message = await store.messages.get(job.messageId);
  const raw = await store.messages.raw(job.messageId);
  if (!inbox || !message || !raw) return null;
  return prepareBounce(
    deps,
    {
      inbox,
      raw,
      messageId: message.message_id,
      subject: message.subject,
      sentAt: new Date(message.received_at),
    },
    failed.map((s) => ({
      recipient: s.row.recipient,
      status: s.decision.expired ? '4.4.7' : enhancedStatus(s.outcome.response, true),
      diagnostic: s.decision.expired
        ? `gave up after ${s.row.attempts} attempts: ${s.outcome.response}`
        : s.outcome.response,
      remoteMta: s.outcome.remoteMta,
      lastAttempt: at,
    })),
  );
}
