import type { MailboxDeps } from '../deps.js';

/**
 * Between tests (the in-process `reset()`): every hosted inbox emptied (mail, threads, custom
 * folders, events, uids from 1) and every user's labels, webhooks and idempotency keys gone;
 * users, API keys, domains and inboxes kept. Connected (IMAP) inboxes keep their mail, which
 * lives on their own server. Meant for when no mail is on its way.
 */
export async function resetMailboxes(deps: MailboxDeps): Promise<void> {
  await deps.store.reset.mail();
}

/**
 * `reset({ all: true })`: every user, key, inbox (connected ones too, whose sync stops) and
 * domain gone, as before the first start; the caller bootstraps again.
 */
export async function resetEverything(deps: MailboxDeps): Promise<void> {
  await deps.store.reset.everything();
  deps.remote.inboxesChanged();
}
