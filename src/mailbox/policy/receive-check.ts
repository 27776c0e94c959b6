import type { ListEntryRow } from '../../store/address-lists.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';
import type { Recipient, RecipientRefusal } from '../ingest/recipients.js';
import { recipientOf } from '../ingest/recipients.js';
import { verdictOf } from './matching.js';

/** The receive entries that decide for an inbox: its own and its user's. */
export function receiveListsOf(deps: Pick<MailboxDeps, 'store'>, inbox: InboxRow): Promise<ListEntryRow[]> {
  return deps.store.addressLists.forInbox(inbox.user_id, inbox.id, 'receive');
}

/**
 * RCPT TO (contract 14): who gets mail sent to `address` (recipientOf), refused as
 * `sender-blocked` when the inbox's receive block lists hold the envelope sender (a null sender,
 * a bounce, is never refused). Answers the receive entries with the recipient, so the filing of
 * the message by its header From needs no second look-up.
 */
export async function recipientFrom(
  deps: MailboxDeps,
  address: string,
  sender: string,
): Promise<Recipient | RecipientRefusal | 'sender-blocked'> {
  const found = await recipientOf(deps, address);
  if (typeof found === 'string') return found;
  const receiveLists = await receiveListsOf(deps, found.inbox);
  if (sender !== '' && verdictOf(receiveLists, found.inbox.id, sender) === 'blocked') return 'sender-blocked';
  return { ...found, receiveLists };
}

/**
 * Whether received mail goes to Spam rather than INBOX for its header From (contract 14): an
 * address on a receive block list, or outside a non-empty receive allow list. Mail without a
 * From is left to the rest of filing.
 */
export function fromFilesAsSpam(entries: ListEntryRow[], inbox: InboxRow, from: string | undefined): boolean {
  return entries.length > 0 && Boolean(from) && verdictOf(entries, inbox.id, from!) !== 'allowed';
}
