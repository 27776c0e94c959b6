import nodemailer from 'nodemailer';
import type { SubmitResult, TlsTrust } from '../mailbox/remote.js';
import { publicAddressOf } from '../mailbox/connect/private-servers.js';
import type { Resolver } from '../net/reach.js';
import type { TokenSource } from './connection.js';
import { remoteError, tlsOptions } from './connection.js';

/** XOAUTH2 with the mailbox's tokens; nodemailer asks again with `renew` when one is refused. */
function oauthOf(url: string, tokens: TokenSource) {
  return {
    auth: {
      type: 'OAuth2',
      user: decodeURIComponent(new URL(url).username),
      provisionCallback: (_user: string, renew: boolean, done: (err: Error | null, token?: string) => void) =>
        tokens.get(renew).then(
          (token) => done(null, token),
          (error: Error) => done(error),
        ),
    },
  };
}

/** How to reach a mailbox's SMTP server besides its URL (ImapExtra's meanings). */
export interface SmtpExtra {
  tls?: TlsTrust | undefined;
  tokens?: TokenSource | undefined;
  publicOnly?: Resolver | undefined;
}

async function transportOf(url: string, timeoutMs: number, { tls, tokens, publicOnly }: SmtpExtra) {
  const u = new URL(url);
  if (tokens) {
    u.username = '';
    u.password = '';
  }
  let servername: string | undefined;
  if (publicOnly) {
    const target = await publicAddressOf(url, 'smtp', publicOnly);
    u.hostname = target.host.includes(':') ? `[${target.host}]` : target.host;
    // nodemailer reads the query as options of its own (proxy=, localAddress=): none of that.
    u.search = '';
    servername = target.servername;
  }
  return nodemailer.createTransport({
    url: u.toString(),
    ...(servername ? { servername } : {}),
    ...(tokens ? oauthOf(url, tokens) : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs * 3,
    ...(tls ? { tls: tlsOptions(tls) } : {}),
  } as Parameters<typeof nodemailer.createTransport>[0]);
}

/** Sends raw MIME through the mailbox's own SMTP server (smtp:// uses STARTTLS when offered). */
export async function submitSmtp(
  url: string,
  envelope: { from: string; to: string[] },
  raw: Buffer,
  timeoutMs: number,
  extra: SmtpExtra = {},
): Promise<SubmitResult> {
  let transport: Awaited<ReturnType<typeof transportOf>> | undefined;
  try {
    transport = await transportOf(url, timeoutMs, extra);
    const info = await transport.sendMail({ envelope, raw });
    const text = (list: unknown[]) =>
      list.map((a) => (typeof a === 'string' ? a : (a as { address: string }).address));
    return { accepted: text(info.accepted), rejected: text(info.rejected) };
  } catch (error) {
    throw remoteError(error, 'SMTP', url);
  } finally {
    transport?.close();
  }
}

/** Connects, greets and logs in (when the URL has credentials), then hangs up. */
export async function verifySmtp(url: string, timeoutMs: number, extra: SmtpExtra = {}): Promise<void> {
  let transport: Awaited<ReturnType<typeof transportOf>> | undefined;
  try {
    transport = await transportOf(url, timeoutMs, extra);
    await transport.verify();
  } catch (error) {
    throw remoteError(error, 'SMTP', url);
  } finally {
    transport?.close();
  }
}
