import type { MessageRow } from '../../store/messages.js';
import type { MailboxDeps } from '../deps.js';

/**
 * The email as it is now, its row held until the caller's transaction commits: what reads the
 * flags to write them back must call this first. On PostgreSQL two such changes to one email
 * can otherwise both read the old flags, and the second write drops the first one's flag.
 * Rewriting the uid (it never changes) takes the row lock on PostgreSQL; on SQLite the
 * transaction holds the whole database anyway. Undefined when the email is gone.
 */
export async function lockMessage(
  deps: MailboxDeps,
  message: Pick<MessageRow, 'id' | 'uid'>,
): Promise<MessageRow | undefined> {
  await deps.store.messages.update(message.id, { uid: message.uid });
  return deps.store.messages.get(message.id);
}

/** Adds one flag to an email (\Answered after a reply), in a transaction of its own unless in one. */
export async function addFlag(deps: MailboxDeps, messageId: number, flag: string): Promise<void> {
  const found = await deps.store.messages.get(messageId);
  if (!found) return;
  await deps.store.db.transaction(async () => {
    const current = await lockMessage(deps, found);
    if (!current) return;
    const flags = JSON.parse(current.flags) as string[];
    if (!flags.includes(flag)) await deps.store.messages.setFlags(messageId, [...flags, flag]);
  });
}
