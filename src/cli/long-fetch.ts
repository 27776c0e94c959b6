import { Agent, fetch as undiciFetch } from 'undici';
import type { RequestInit as UndiciRequestInit } from 'undici';
import { WAIT_MAX_SECONDS } from '../mailbox/events/wait-for-email.js';

/**
 * How long the stdio proxy waits for an answer's headers and between its body's chunks: a
 * `wait_for_email` of the longest allowed timeout, plus a minute for the server's own work. Node's
 * fetch gives up after 300 s, exactly the longest wait, so such a call failed in the proxy.
 */
export const PROXY_TIMEOUT_MS = (WAIT_MAX_SECONDS + 60) * 1000;

/** A fetch whose headers and body timeouts are `timeoutMs` instead of Node's 300 s. */
export function fetchWithTimeout(
  timeoutMs: number,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  const dispatcher = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  return async (url, init) =>
    (await undiciFetch(url, { ...(init as UndiciRequestInit), dispatcher })) as unknown as Response;
}
