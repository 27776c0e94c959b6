import type { MailboxDeps } from '../mailbox/deps.js';
import type { Recipient } from '../mailbox/ingest/recipients.js';
import { recipientOf } from '../mailbox/ingest/recipients.js';
import { reply } from './replies.js';

/**
 * RCPT TO policy (the rule is recipientOf's): a recipient with an inbox is accepted; an unknown
 * user of a hosted domain is 550 5.1.1; any other domain is 550 5.7.1 (never a relay).
 */
export async function resolveRecipient(deps: MailboxDeps, address: string): Promise<Recipient> {
  const found = await recipientOf(deps, address);
  if (found === 'unknown-user') throw reply.unknownUser();
  if (found === 'not-hosted') throw reply.relayDenied();
  return found;
}
