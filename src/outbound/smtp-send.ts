import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Outcome } from './outcome.js';
import { allRecipients } from './outcome.js';

interface SmtpError {
  message?: string;
  code?: string;
  response?: string;
  responseCode?: number;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

export interface Envelope {
  from: string;
  to: string[];
}

const classOf = (code: number | undefined): Outcome['result'] =>
  code !== undefined && code >= 500 && code < 600 ? 'permanent' : 'temporary';

const replyOf = (err: SmtpError): string =>
  (err.response ?? `${err.code ? `${err.code}: ` : ''}${err.message ?? 'delivery failed'}`).trim();

/** One SMTP transaction on a connection of its own, closed afterwards (direct MX delivery). */
export async function sendOnce(
  options: SMTPTransport.Options,
  envelope: Envelope,
  raw: Buffer,
  remoteMta: string,
): Promise<Outcome[]> {
  const transport = nodemailer.createTransport(options);
  try {
    return await sendOverSmtp(transport, envelope, raw, remoteMta);
  } finally {
    transport.close();
  }
}

/**
 * One SMTP transaction to one server for some recipients of one message. Each recipient gets
 * its own outcome: accepted, refused for now (4xx, or no answer at all) or refused for good (5xx).
 */
export async function sendOverSmtp(
  transport: Transporter,
  envelope: Envelope,
  raw: Buffer,
  remoteMta: string,
): Promise<Outcome[]> {
  try {
    const info = (await transport.sendMail({ envelope: { from: envelope.from, to: envelope.to }, raw })) as {
      response?: string;
      rejectedErrors?: SmtpError[];
    };
    const rejected = rejectionsByRecipient(info.rejectedErrors);
    return envelope.to.map((recipient) => {
      const err = rejected.get(recipient.toLowerCase());
      return err
        ? { recipient, result: classOf(err.responseCode), response: replyOf(err), remoteMta }
        : { recipient, result: 'delivered', response: (info.response ?? '250 OK').trim(), remoteMta };
    });
  } catch (error) {
    const err = error as SmtpError;
    const rejected = rejectionsByRecipient(err.rejectedErrors);
    if (rejected.size > 0) {
      return envelope.to.map((recipient) => {
        const own = rejected.get(recipient.toLowerCase()) ?? err;
        return { recipient, result: classOf(own.responseCode), response: replyOf(own), remoteMta };
      });
    }
    const answered = err.responseCode !== undefined;
    return allRecipients(envelope.to, classOf(err.responseCode), replyOf(err), answered ? remoteMta : null);
  }
}

function rejectionsByRecipient(errors: SmtpError[] | undefined): Map<string, SmtpError> {
  const out = new Map<string, SmtpError>();
  for (const err of errors ?? []) if (err.recipient) out.set(err.recipient.toLowerCase(), err);
  return out;
}
