import type { Client } from 'openapi-fetch';
import { MailroomApiError } from './api-error.js';
import type { ApiPaths, Email } from './types.js';
import type { WaitForEmailOptions } from './waiting.js';
import { DEFAULT_WAIT_MS, EmailWaitTimeout, LATEST_SHOWN, seen, waitFilters } from './waiting.js';

/**
 * The longest `wait=` asked for, in seconds: the API takes 300, but Node's fetch gives up on an
 * answer's headers after 300 s, and a long-poll's headers come only when it ends.
 */
const LONG_POLL_MAX_S = 290;

/**
 * The first email matching `options`, read whole, over the API's long-poll: `GET /emails?wait=`
 * requests one after another until `timeoutMs`, then EmailWaitTimeout with the folder's latest
 * mail. Each asks the server for whole seconds ending a second before the deadline, so its empty
 * answer comes back in time on a slow link; the last one is cut off at the deadline.
 */
export async function waitForEmailOverHttp(
  client: Client<ApiPaths>,
  options: WaitForEmailOptions,
): Promise<Email> {
  const filters = waitFilters(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
  const startedAt = Date.now();
  const deadline = startedAt + timeoutMs;
  for (let left = timeoutMs; left > 0; left = deadline - Date.now()) {
    const wait = Math.min(LONG_POLL_MAX_S, Math.max(1, Math.floor(left / 1000) - 1));
    const signal = AbortSignal.timeout(left);
    let page;
    try {
      page = await client.GET('/emails', { params: { query: { ...filters, limit: 1, wait } }, signal });
    } catch (error) {
      if (signal.aborted) break;
      throw error;
    }
    if (page.error !== undefined) throw new MailroomApiError(page.response.status, page.error);
    const found = page.data.data.emails[0];
    if (found) return readWhole(client, filters.account, found);
  }
  const latest = await client.GET('/emails', {
    params: { query: { account: filters.account, folder: filters.folder, limit: LATEST_SHOWN } },
  });
  if (latest.error !== undefined) throw new MailroomApiError(latest.response.status, latest.error);
  throw new EmailWaitTimeout(filters, timeoutMs, seen(latest.data.data.emails), startedAt);
}

/** A list item carries text cut to 500 characters and no html: the wait answers the email whole. */
async function readWhole(client: Client<ApiPaths>, account: string, listed: Email): Promise<Email> {
  const res = await client.GET('/emails/{id}', {
    params: { path: { id: listed.uid }, query: { account, folder: listed.folder } },
  });
  if (res.error !== undefined) throw new MailroomApiError(res.response.status, res.error);
  return res.data.data.email;
}
