import type { MailboxDeps } from '../mailbox/deps.js';
import type { Recipient } from '../mailbox/ingest/recipients.js';
import { recipientFrom } from '../mailbox/policy/receive-check.js';
import { reply } from './replies.js';

/**
 * RCPT TO policy (the rule is recipientFrom's): a recipient with an inbox is accepted; an unknown
 * user of a hosted domain is 550 5.1.1; any other domain is 550 5.7.1 (never a relay); an
 * envelope sender the inbox blocks is 550 5.7.1 for that inbox alone.
 */
export async function resolveRecipient(
  deps: MailboxDeps,
  address: string,
  sender: string,
): Promise<Recipient> {
  const found = await recipientFrom(deps, address, sender);
  if (found === 'unknown-user') throw reply.unknownUser();
  if (found === 'not-hosted') throw reply.relayDenied();
  if (found === 'sender-blocked') throw reply.senderBlocked();
  return found;
}
