import { splitTag } from '../mail/addresses.js';
import type { MailboxDeps } from '../mailbox/deps.js';
import type { FolderRow } from '../store/folders.js';
import type { InboxRow } from '../store/inboxes.js';
import { reply } from './replies.js';

type PolicyDeps = Pick<MailboxDeps, 'store' | 'config' | 'log'>;

/** An accepted recipient: its inbox, and that inbox's INBOX folder when read with it. */
export interface Recipient {
  inbox: InboxRow;
  inboxFolder?: FolderRow;
}

/**
 * RCPT TO policy: a local inbox (case-insensitive, `name+tag@` delivers to `name@`) is accepted;
 * so are `postmaster@` of a hosted domain and a bare `Postmaster` (RFC 5321 4.5.1), see
 * postmasterInbox; an unknown user of a hosted domain is 550 5.1.1; any other domain is
 * 550 5.7.1 (never a relay).
 */
export async function resolveRecipient(deps: PolicyDeps, address: string): Promise<Recipient> {
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
  if (hosted || base === 'postmaster') throw reply.unknownUser();
  throw reply.relayDenied();
}

/**
 * Where postmaster@ mail goes when no inbox has that address: MAILROOM_POSTMASTER, else the oldest
 * local inbox of the oldest user (there is no admin flag yet; on a fresh install that is the
 * bootstrap inbox). A configured address that is not a local inbox is logged and skipped.
 */
async function postmasterInbox(deps: PolicyDeps): Promise<InboxRow | undefined> {
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
