import type { ParsedEmail } from '../../mail/types.js';
import { normalizeSubject } from '../../mail/subject.js';
import type { Store } from '../../store/index.js';
import { newId } from '../../store/ids.js';

const SUBJECT_WINDOW_MS = 30 * 24 * 3600 * 1000;

/**
 * Contract 4: In-Reply-To, else the last resolvable References id; with neither header, the same
 * normalised subject and a shared sender and recipient within 30 days; else a new thread.
 */
export async function findThread(
  store: Store,
  inboxId: number,
  parsed: ParsedEmail,
  date: Date,
): Promise<string | undefined> {
  if (parsed.inReplyTo) {
    const found = await store.messages.threadOfMessageId(inboxId, parsed.inReplyTo);
    if (found) return found;
  }
  for (const ref of [...parsed.references].reverse()) {
    const found = await store.messages.threadOfMessageId(inboxId, ref);
    if (found) return found;
  }
  const bySubject = subjectLookup(parsed, date);
  if (!bySubject) return undefined;
  const { key, since } = bySubject;
  const sender = parsed.from?.address.toLowerCase();
  const recipients = [...parsed.to, ...parsed.cc].map((a) => a.address.toLowerCase());
  for (const thread of await store.threads.recentBySubject(inboxId, key, since)) {
    const people = new Set(await store.threads.participants(thread.id));
    if (sender && people.has(sender) && recipients.some((r) => people.has(r))) return thread.id;
  }
  return undefined;
}

/**
 * Tells the transaction the subject look-up findThread will make for this message, if any, so
 * a group commit reads those of all its messages at once (ThreadStore.expectSubject).
 */
export function expectThreadLookup(store: Store, inboxId: number, parsed: ParsedEmail, date: Date): void {
  const bySubject = subjectLookup(parsed, date);
  if (bySubject) store.threads.expectSubject(inboxId, bySubject.key, bySubject.since);
}

/** The subject key and window findThread looks a message up by: only mail without reply headers. */
function subjectLookup(parsed: ParsedEmail, date: Date): { key: string; since: string } | undefined {
  if (parsed.inReplyTo || parsed.references.length > 0) return undefined;
  const key = normalizeSubject(parsed.subject);
  if (!key) return undefined;
  return { key, since: new Date(date.getTime() - SUBJECT_WINDOW_MS).toISOString() };
}

export function newThreadId(): string {
  return newId('thr', 12);
}
