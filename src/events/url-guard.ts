import type { Config } from '../config.js';
import { bindsLoopbackOnly } from '../net/address-ranges.js';
import type { OutOfReach, Reach, Resolver } from '../net/reach.js';
import { checkHost, defaultResolve } from '../net/reach.js';

/**
 * `reason` is shown to the caller; `address` (a name's non-public address) is for the server
 * log only, so a key holder cannot map internal names to internal addresses.
 */
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string; address?: string };

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Where webhooks may go (contract 7): anywhere with MAILROOM_WEBHOOK_ALLOW_PRIVATE; else public
 * addresses, and this machine's loopback too while the server listens on loopback only (whoever
 * can reach it is on this machine already, and a local receiver is what they are trying).
 */
export function webhookReach(config: Pick<Config, 'webhookAllowPrivate' | 'host'>): Reach {
  if (config.webhookAllowPrivate) return 'any';
  return bindsLoopbackOnly(config.host) ? 'public-or-loopback' : 'public';
}

/** What a caller is told about a target out of reach: never a name's address, always the setting. */
export function webhookRefusal(check: OutOfReach): string {
  const what =
    check.why === 'literal'
      ? `webhook URL points to a private address (${check.address})`
      : check.why === 'localhost'
        ? 'webhook URL points to localhost'
        : 'webhook URL resolves to a non-public address';
  return `${what}; MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets`;
}

export function parseWebhookUrl(input: string): UrlCheck {
  if (input.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, reason: `webhook URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: 'webhook URL is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'webhook URL must use http or https' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'webhook URL must not contain credentials' };
  }
  if (url.hostname === '') return { ok: false, reason: 'webhook URL has no host' };
  return { ok: true, url };
}

export async function checkWebhookUrl(
  input: string,
  opts: { reach: Reach; resolve?: Resolver },
): Promise<UrlCheck> {
  const parsed = parseWebhookUrl(input);
  if (!parsed.ok) return parsed;
  const check = await checkHost(parsed.url.hostname, opts.reach, opts.resolve ?? defaultResolve);
  if (check.ok) return parsed;
  if (check.why === 'unresolved')
    return { ok: false, reason: `webhook URL host could not be resolved (${parsed.url.hostname})` };
  return {
    ok: false,
    reason: webhookRefusal(check),
    ...(check.why === 'resolves' ? { address: check.address } : {}),
  };
}
