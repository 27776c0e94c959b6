import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';
import type { ErrorDetail } from '../errors.js';
import { RecipientBlocked } from '../errors.js';
import type { OutgoingRecipient } from '../sending/send-policy.js';
import { verdictOf } from './matching.js';

const WORDS = {
  blocked: (address: string, inbox: string) => `${address} is on a send block list of ${inbox}`,
  not_allowed: (address: string, inbox: string) => `${address} is not on the send allow list of ${inbox}`,
  suppressed: (address: string) =>
    `${address} is suppressed after a permanent delivery failure (DELETE /api/v1/suppressions/${address} lifts it)`,
};

/**
 * Step 3 of the send policy (contract 14): each recipient against the inbox's and the user's send
 * lists, then the user's suppressions (whatever the allow lists say). One refused recipient
 * refuses the whole send with every refused address in the details.
 */
export async function checkRecipientLists(
  deps: MailboxDeps,
  inbox: InboxRow,
  recipients: OutgoingRecipient[],
): Promise<void> {
  if (recipients.length === 0) return;
  const [entries, suppressed] = await Promise.all([
    deps.store.addressLists.forInbox(inbox.user_id, inbox.id, 'send'),
    deps.store.suppressions.among(inbox.user_id, [...new Set(recipients.map((r) => r.address))]),
  ]);
  const details: ErrorDetail[] = [];
  for (const { path, address } of recipients) {
    const verdict = verdictOf(entries, inbox.id, address);
    const reason = verdict !== 'allowed' ? verdict : suppressed.has(address) ? 'suppressed' : null;
    if (!reason) continue;
    details.push({ path, address, reason, message: WORDS[reason](address, inbox.address) });
  }
  const [first] = details;
  if (!first) return;
  const more = details.length > 1 ? ` (and ${details.length - 1} more: see details)` : '';
  throw new RecipientBlocked(`nothing was sent: ${first.message}${more}`, details);
}
