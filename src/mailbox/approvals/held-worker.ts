import type { Worker } from '../../worker.js';
import { intervalWorker } from '../../worker.js';
import type { HeldSendRow } from '../../store/held-sends.js';
import { nowIso } from '../../store/ids.js';
import type { MailboxDeps } from '../deps.js';
import type { OutgoingRecipient } from '../sending/send-policy.js';
import { checkSendPolicy } from '../sending/send-policy.js';
import { normalizeAddress } from '../../mail/addresses.js';
import { appendHeldEvent, approvalTtlMs } from './hold.js';
import { fullView, isRefusal, releaseHeld, sendBack } from './release.js';

/** How long a node holds the sends it claimed; one that dies leaves them due again after it. */
const LEASE_MS = 60_000;

export interface HeldSendWorkerOptions {
  /** How often to look for sends whose time has come (default every second). */
  intervalMs?: number;
}

/**
 * The sends kept in Outbox whose time has come, on every node: a scheduled send goes (rules and
 * mode checked again), a send not decided within MAILROOM_APPROVAL_TTL_HOURS goes back to
 * Drafts as expired. Rows are claimed with a lease (HeldSendStore.claimDue), and going out marks
 * the row sent in the send's own transaction, so each goes once across nodes and restarts.
 */
export function createHeldSendWorker(deps: MailboxDeps, options: HeldSendWorkerOptions = {}): Worker {
  const intervalMs = options.intervalMs ?? 1000;

  async function handle(held: HeldSendRow): Promise<void> {
    const inbox = await deps.store.inboxes.get(held.inbox_id);
    if (!inbox) return;
    if (held.state === 'pending') {
      await sendBack(deps, inbox, held, ['pending'], 'expired', null);
      return;
    }
    // Not approved before: a mode that now asks for approval makes it wait for a person.
    if (!held.approval && (await waitsForApproval(held))) return;
    try {
      await releaseHeld(deps, inbox, held, ['scheduled'], null);
    } catch (err) {
      // A refusal sent it back to Drafts already; anything else is tried again after the lease.
      if (!isRefusal(err)) deps.log.warn({ err, id: held.id }, 'scheduled send failed; retrying');
    }
  }

  async function waitsForApproval(held: HeldSendRow): Promise<boolean> {
    const inbox = (await deps.store.inboxes.get(held.inbox_id))!;
    const message = held.message_id === null ? undefined : await deps.store.messages.get(held.message_id);
    if (!message) return false;
    const field = (path: OutgoingRecipient['path'], json: string) =>
      (JSON.parse(json) as string[]).map((address) => ({ path, address: normalizeAddress(address) }));
    const recipients = [
      ...field('to', message.to_addrs),
      ...field('cc', message.cc_addrs),
      ...field('bcc', message.bcc_addrs),
    ];
    let approval: string | null;
    try {
      approval = (await checkSendPolicy(deps, inbox, recipients)).approval;
    } catch (err) {
      if (!isRefusal(err)) throw err;
      await sendBack(deps, inbox, held, ['scheduled'], `${err.code}: ${err.message}`, null);
      return true;
    }
    if (!approval) return false;
    const expiresAt = nowIso(new Date(Date.now() + approvalTtlMs(deps)));
    const events = await deps.store.db.transaction(async () => {
      const changed = await deps.store.heldSends.change(held.id, ['scheduled'], {
        state: 'pending',
        approval: 1,
        reason: approval,
        expires_at: expiresAt,
        due_at: expiresAt,
      });
      if (!changed) return [];
      const view = await fullView(deps, inbox, message);
      const waiting = { ...held, approval: 1 };
      return [
        await appendHeldEvent(deps, 'email.pending_approval', inbox, waiting, view, {
          requestedBy: held.requested_by,
          reason: approval,
        }),
      ];
    });
    deps.bus.publish(events);
    return true;
  }

  async function passOnce(isStopped: () => boolean): Promise<number> {
    let handled = 0;
    while (!isStopped()) {
      const due = await deps.store.heldSends.claimDue(20, LEASE_MS);
      if (due.length === 0) break;
      for (const held of due) {
        try {
          await handle(held);
        } catch (err) {
          deps.log.error({ err, id: held.id }, 'held send failed');
        }
      }
      handled += due.length;
    }
    return handled;
  }

  return intervalWorker('held-sends', intervalMs, passOnce, (err) =>
    deps.log.error({ err }, 'held sends pass failed'),
  );
}
