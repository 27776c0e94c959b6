import nodemailer from 'nodemailer';
import type { SubmitResult, TlsTrust } from '../mailbox/remote.js';
import { remoteError, tlsOptions } from './connection.js';

function transportOf(url: string, timeoutMs: number, tls: TlsTrust | undefined) {
  return nodemailer.createTransport({
    url,
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
  tls?: TlsTrust,
): Promise<SubmitResult> {
  const transport = transportOf(url, timeoutMs, tls);
  try {
    const info = await transport.sendMail({ envelope, raw });
    const text = (list: unknown[]) =>
      list.map((a) => (typeof a === 'string' ? a : (a as { address: string }).address));
    return { accepted: text(info.accepted), rejected: text(info.rejected) };
  } catch (error) {
    throw remoteError(error, 'SMTP', url);
  } finally {
    transport.close();
  }
}

/** Connects, greets and logs in (when the URL has credentials), then hangs up. */
export async function verifySmtp(url: string, timeoutMs: number, tls?: TlsTrust): Promise<void> {
  const transport = transportOf(url, timeoutMs, tls);
  try {
    await transport.verify();
  } catch (error) {
    throw remoteError(error, 'SMTP', url);
  } finally {
    transport.close();
  }
}
