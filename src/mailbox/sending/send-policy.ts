import { normalizeAddress, parseAddressList } from '../../mail/addresses.js';
import type { MailboxDeps } from '../deps.js';
import { checkRecipientLists } from '../policy/send-check.js';
import type { Outgoing } from './outgoing-types.js';

/** One recipient of a send, and the field it came from (`details[].path` of a refusal). */
export interface OutgoingRecipient {
  path: 'to' | 'cc' | 'bcc';
  /** Trimmed and lower-cased. */
  address: string;
}

/** Every recipient of a message on its way out, by the field it came from. */
export function recipientsOf(out: Outgoing): OutgoingRecipient[] {
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
 * checked by the verb itself (requireInbox, requirePermission) before it gets here.
 */
export async function checkSendPolicy(deps: MailboxDeps, out: Outgoing): Promise<void> {
  const recipients = recipientsOf(out);
  // 2. paused or mode (inbox settings)
  await checkRecipientLists(deps, out.inbox, recipients); // 3. allow and block lists, suppressions
  // 4. the loop guard
  // 5. the send limits
}
