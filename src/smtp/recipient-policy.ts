import { splitTag } from '../mail/addresses.js';
import type { InboxRow } from '../store/inboxes.js';
import type { Store } from '../store/index.js';
import { reply } from './replies.js';

/**
 * RCPT TO policy: a local inbox (case-insensitive, `name+tag@` delivers to `name@`) is accepted;
 * an unknown user of a hosted domain is 550 5.1.1; any other domain is 550 5.7.1 (never a relay).
 */
export function resolveRecipient(store: Store, address: string): InboxRow {
  const { base } = splitTag(address.trim().toLowerCase());
  const inbox = store.inboxes.findByAddress(base);
  if (inbox && inbox.kind === 'local') return inbox;
  const domain = base.split('@')[1] ?? '';
  if (domain && store.domains.find(domain)) throw reply.unknownUser();
  throw reply.relayDenied();
}
