import type { ImapFlow } from 'imapflow';
import type { Logger } from 'pino';
import type { TlsTrust } from '../mailbox/remote.js';
import { MailroomError, Unprocessable, Upstream } from '../mailbox/errors.js';
import { RefreshTokenRefused, TokenEndpointFailed } from '../mailbox/connect/oauth2.js';
import { publicAddressOf } from '../mailbox/connect/private-servers.js';
import type { Resolver } from '../net/reach.js';

/** Where OAuth2 access tokens come from (`renew`: the last one was refused, get a new one). */
export interface TokenSource {
  get(renew?: boolean): Promise<string>;
}

/** Errors of a connection that never got through: answered 422 (contract 3), not 502. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ETIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  'ECONNECTION',
  'ESOCKET',
  'EDNS',
  'CONNECT_TIMEOUT',
  'GREETING_TIMEOUT',
  'NoConnection',
  'ClosedAfterConnectTLS',
  'ClosedAfterConnectText',
]);

/** Node TLS options for a mailbox's trust setting. */
export function tlsOptions(trust: TlsTrust): { ca?: string; rejectUnauthorized?: boolean } {
  return trust.insecure ? { rejectUnauthorized: false } : trust.ca ? { ca: trust.ca } : {};
}

/** TLS verification failures: the certificate, not the network, stood in the way. */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Where a URL points, for messages and logs: never the credentials. */
export function hostOf(url: string): string {
  const u = new URL(url);
  return u.port ? `${u.hostname}:${u.port}` : u.hostname;
}

/**
 * A remote failure as the API answers it: unreachable is 422 `unprocessable`; a login refused,
 * or a command answered NO/BAD or 4xx/5xx, is 502 `upstream_error`.
 */
export function remoteError(error: unknown, protocol: 'IMAP' | 'SMTP', url: string): MailroomError {
  const e = error as {
    code?: string;
    authenticationFailed?: boolean;
    responseText?: string;
    response?: string;
    responseCode?: number;
    message?: string;
  };
  const host = hostOf(url);
  if (error instanceof RefreshTokenRefused) {
    return new Upstream(
      `OAuth2: ${error.message}; the mailbox needs a new refresh token (connect it again, or grant access again)`,
    );
  }
  if (error instanceof TokenEndpointFailed) return new Unprocessable(`OAuth2: ${error.message}`);
  // Already said for the API (a server refused for its address): as it is.
  if (error instanceof MailroomError) return error;
  const said = (e.responseText ?? e.response ?? e.message ?? String(error)).trim();
  const field = protocol.toLowerCase();
  if (e.code && UNTRUSTED.has(e.code)) {
    return new Unprocessable(
      `the ${protocol} server ${host} presents a certificate this machine does not trust (${said}): ` +
        `give its CA certificate as ${field}.tls.ca, or set ${field}.tls.insecure to skip the check`,
    );
  }
  if (e.authenticationFailed || e.code === 'EAUTH') {
    return new Upstream(`the ${protocol} server ${host} refused the login: ${said}`);
  }
  if ((e.code && UNREACHABLE.has(e.code)) || /timeout|timed out|ECONNREFUSED|closed/i.test(e.message ?? '')) {
    if (!e.responseCode)
      return new Unprocessable(`cannot reach the ${protocol} server ${host}: ${e.code ?? said}`);
  }
  return new Upstream(`the ${protocol} server ${host} refused: ${said}`);
}

/**
 * Connects and logs in; every client gets an error handler, so a dropped socket is never an
 * uncaught event. `checkMs` bounds how long an IDLE lasts before it is ended and begun again (the
 * server reports new mail at the end of a command even when its IDLE does not push), and how
 * often a server without IDLE gets a NOOP.
 */
/**
 * How to open a connection besides the URL: IDLE timing, TLS trust, OAuth2 tokens, and
 * `publicOnly`, the resolver through which a server that must stay public is reached (its
 * address checked, then connected to).
 */
export interface ImapExtra {
  checkMs?: number;
  tls?: TlsTrust;
  tokens?: TokenSource;
  publicOnly?: Resolver;
}

export async function openImap(
  url: string,
  timeoutMs: number,
  log: Logger,
  extra: ImapExtra = {},
): Promise<ImapFlow> {
  try {
    return await loginImap(url, timeoutMs, log, extra, false);
  } catch (error) {
    // A token refused before it expired (revoked, or the server's clock): one more try with a new one.
    if (!extra.tokens || !(error as { authenticationFailed?: boolean }).authenticationFailed)
      throw remoteError(error, 'IMAP', url);
    try {
      return await loginImap(url, timeoutMs, log, extra, true);
    } catch (again) {
      throw remoteError(again, 'IMAP', url);
    }
  }
}

async function loginImap(
  url: string,
  timeoutMs: number,
  log: Logger,
  extra: ImapExtra,
  renew: boolean,
): Promise<ImapFlow> {
  const { checkMs, tokens } = extra;
  const u = new URL(url);
  const secure = u.protocol === 'imaps:';
  const user = decodeURIComponent(u.username);
  const target = extra.publicOnly
    ? await publicAddressOf(url, 'imap', extra.publicOnly)
    : { host: u.hostname };
  // Loaded with the first connection: a server with no external inbox never loads it (~0.45 CPU-s
  // and ~6 MB of heap at every start otherwise).
  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({
    host: target.host,
    ...(target.servername ? { servername: target.servername } : {}),
    port: Number(u.port) || (secure ? 993 : 143),
    secure,
    // imapflow logs in with OAUTHBEARER when the server offers it, else XOAUTH2.
    auth: tokens
      ? { user, accessToken: await tokens.get(renew) }
      : { user, pass: decodeURIComponent(u.password) },
    logger: false,
    disableAutoIdle: true,
    ...(checkMs ? { maxIdleTime: checkMs, missingIdleCommand: 'NOOP' as const } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    emitLogs: false,
    ...(extra.tls ? { tls: tlsOptions(extra.tls) } : {}),
  });
  client.on('error', (err: Error) =>
    log.debug({ host: hostOf(url), err: err.message }, 'imap connection error'),
  );
  try {
    await client.connect();
  } catch (error) {
    client.close();
    throw error;
  }
  return client;
}

/** Logs out politely when the connection still works, else just drops it. */
export async function closeImap(client: ImapFlow | null): Promise<void> {
  if (!client) return;
  if (client.usable) {
    try {
      await Promise.race([client.logout(), new Promise((r) => setTimeout(r, 2000).unref())]);
    } catch {
      // already gone
    }
  }
  client.close();
}
