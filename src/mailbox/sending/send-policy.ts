import { normalizeAddress, parseAddressList } from '../../mail/addresses.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';
import { Forbidden, InboxPaused } from '../errors.js';
import { checkRecipientLists } from '../policy/send-check.js';
import type { Outgoing } from './outgoing-types.js';

/** One recipient of a send, and the field it came from (`details[].path` of a refusal). */
export interface OutgoingRecipient {
  path: 'to' | 'cc' | 'bcc';
  /** Trimmed and lower-cased. */
  address: string;
}

/** Every recipient of a message on its way out, by the field it came from. */
export function outgoingRecipients(out: Outgoing): OutgoingRecipient[] {
  const field = (path: OutgoingRecipient['path'], entries: string[]) =>
    parseAddressList(entries).map((entry) => ({ path, address: normalizeAddress(entry.address) }));
  return [
    ...field('to', out.compose.to),
    ...field('cc', out.compose.cc ?? []),
    ...field('bcc', out.bcc),
  ].filter((recipient) => recipient.address !== '');
}

/**
 * The owner's rules a send must pass before anything is saved or sent (contract 14), in the
 * contract's order; the first refusal is the answer. Reach and permission come first and are
 * checked by the verb itself (requireInbox, requirePermission) before it gets here. The loop
 * guard and the send limits come last, inside the send's own transaction (countSend), so their
 * count and check hold across nodes.
 */
export async function checkSendPolicy(
  deps: MailboxDeps,
  inbox: InboxRow,
  recipients: OutgoingRecipient[],
): Promise<SendVerdict> {
  checkSendSettings(inbox); // 2. paused or mode (inbox settings)
  await checkRecipientLists(deps, inbox, recipients); // 3. allow and block lists, suppressions
  // 4. the loop guard and 5. the send limits: countSend, in dispatch's transaction
  return { approval: await approvalReason(deps, inbox, recipients) };
}

/** What the policy let through: the send goes, or (approval not null) it waits for a person, and why. */
export interface SendVerdict {
  approval: string | null;
}

/**
 * Why the inbox's mode makes this send wait for a person (contract 15), or null. approve_new:
 * a recipient the inbox never received mail from (outside Spam) nor sent mail to.
 */
async function approvalReason(
  deps: MailboxDeps,
  inbox: InboxRow,
  recipients: OutgoingRecipient[],
): Promise<string | null> {
  if (inbox.send_mode === 'approve_all')
    return `${inbox.address} asks for approval of every send (approve_all)`;
  if (inbox.send_mode !== 'approve_new') return null;
  const unknown = await deps.store.correspondents.unknown(
    inbox.id,
    recipients.map((r) => r.address),
  );
  if (unknown.length === 0) return null;
  return `${inbox.address} asks for approval of a send to anyone new (approve_new): ${[...new Set(unknown)].join(', ')}`;
}

/** Step 2: the inbox's owner paused its sending, or made it read-only. */
function checkSendSettings(inbox: InboxRow): void {
  if (inbox.paused === 1) throw new InboxPaused(inbox.address);
  if (inbox.send_mode === 'read_only') {
    throw new Forbidden(
      `${inbox.address} is read-only (its settings' mode is read_only): it receives mail but sends none; ` +
        'its owner can change the mode (PATCH /api/v1/accounts/{address}/settings, or the dashboard)',
    );
  }
}
