import type { Email } from '../client/types.js';
import type { WaitForEmailOptions } from '../client/waiting.js';
import { DEFAULT_WAIT_MS, EmailWaitTimeout, LATEST_SHOWN, seen, waitFilters } from '../client/waiting.js';
import type { MailboxDeps } from '../mailbox/deps.js';
import { ownerOfInbox } from '../mailbox/access.js';
import { Unavailable } from '../mailbox/errors.js';
import { waitForEmails } from '../mailbox/events/wait-for-email.js';
import { listEmails, readEmail } from '../mailbox/reading/read.js';

/**
 * The in-process `waitForEmail`: the wait of `GET /emails?wait=` and MCP `wait_for_email`
 * (waitForEmails), with its own milliseconds and as the inbox's owner, then that email read whole.
 * Runs out with EmailWaitTimeout naming the folder's latest mail.
 */
export async function waitForEmailInProcess(deps: MailboxDeps, options: WaitForEmailOptions): Promise<Email> {
  const filters = waitFilters(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
  const startedAt = Date.now();
  const owner = await ownerOfInbox(deps, filters.account);
  const { emails, end } = await waitForEmails(deps, owner, { ...filters, limit: 1 }, { timeoutMs });
  const found = emails[0];
  if (found) return readEmail(deps, owner, filters.account, found.uid, found.folder);
  if (end === 'shutdown')
    throw new Unavailable(`the server stopped while waiting for mail to ${filters.account}`);
  const latest = await listEmails(deps, owner, {
    account: filters.account,
    folder: filters.folder,
    limit: LATEST_SHOWN,
  });
  throw new EmailWaitTimeout(filters, timeoutMs, seen(latest.emails), startedAt);
}
