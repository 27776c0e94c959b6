import { splitTag } from '../../mail/addresses.js';
import type { ListEntryRow } from '../../store/address-lists.js';
import type { FolderRow } from '../../store/folders.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';

/** An accepted recipient: its inbox, and that inbox's INBOX folder when read with it. */
export interface Recipient {
  inbox: InboxRow;
  inboxFolder?: FolderRow;
  /** Its receive allow and block entries, when read with it (at RCPT TO). */
  receiveLists?: ListEntryRow[];
}

/** Why a recipient is refused: a user of a hosted domain with no inbox, or a domain not hosted here. */
export type RecipientRefusal = 'unknown-user' | 'not-hosted';

/**
 * Who gets mail sent to `address`: a local inbox (case-insensitive, `name+tag@` delivers to
 * `name@`); `postmaster@` of a hosted domain and a bare `Postmaster` (RFC 5321 4.5.1), see
 * postmasterInbox; otherwise the refusal: an unknown user of a hosted domain, or any other domain
 * (never a relay).
 */
export async function recipientOf(
  deps: Pick<MailboxDeps, 'store' | 'config' | 'log'>,
  address: string,
): Promise<Recipient | RecipientRefusal> {
  const { base } = splitTag(address.trim().toLowerCase());
  // With its INBOX in the same statement: the message filed later need not ask for it.
  const found = await deps.store.folders.findWithInbox(base, 'INBOX');
  if (found && found.inbox.kind === 'local') return { inbox: found.inbox, inboxFolder: found.folder };
  const at = base.lastIndexOf('@');
  const domain = at > 0 ? base.slice(at + 1) : '';
  const hosted = domain !== '' && Boolean(await deps.store.domains.find(domain));
  if (base === 'postmaster' || (hosted && base.slice(0, at) === 'postmaster')) {
    const postmaster = await postmasterInbox(deps);
    if (postmaster) return { inbox: postmaster };
  }
  return hosted || base === 'postmaster' ? 'unknown-user' : 'not-hosted';
}

/**
 * Where postmaster@ mail goes when no inbox has that address: MAILROOM_POSTMASTER, else the oldest
 * local inbox of the oldest user (there is no admin flag yet; on a fresh install that is the
 * bootstrap inbox). A configured address that is not a local inbox is logged and skipped.
 */
async function postmasterInbox(
  deps: Pick<MailboxDeps, 'store' | 'config' | 'log'>,
): Promise<InboxRow | undefined> {
  const { postmaster } = deps.config;
  if (postmaster) {
    const configured = await deps.store.inboxes.findByAddress(postmaster);
    if (configured && configured.kind === 'local') return configured;
    deps.log.warn({ postmaster }, 'MAILROOM_POSTMASTER is not a local inbox; using the oldest inbox');
  }
  for (const user of await deps.store.users.list()) {
    const inbox = (await deps.store.inboxes.list(user.id)).find((i) => i.kind === 'local');
    if (inbox) return inbox;
  }
  return undefined;
}
