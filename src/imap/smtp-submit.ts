import nodemailer from 'nodemailer';
import type { SubmitResult } from '../mailbox/remote.js';
import { remoteError } from './connection.js';

function transportOf(url: string, timeoutMs: number) {
  return nodemailer.createTransport({
    url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs * 3,
  } as Parameters<typeof nodemailer.createTransport>[0]);
}

/** Sends raw MIME through the mailbox's own SMTP server (smtp:// uses STARTTLS when offered). */
export async function submitSmtp(
  url: string,
  envelope: { from: string; to: string[] },
  raw: Buffer,
  timeoutMs: number,
): Promise<SubmitResult> {
  const transport = transportOf(url, timeoutMs);
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
export async function verifySmtp(url: string, timeoutMs: number): Promise<void> {
  const transport = transportOf(url, timeoutMs);
  try {
    await transport.verify();
  } catch (error) {
    throw remoteError(error, 'SMTP', url);
  } finally {
    transport.close();
  }
}
