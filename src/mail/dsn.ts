import { randomBytes } from 'node:crypto';

/** One recipient the message could not reach (RFC 3464 per-recipient fields). */
export interface DsnRecipient {
  recipient: string;
  /** RFC 3463 enhanced status such as `5.1.1`. */
  status: string;
  /** What the receiving server (or Mailroom) answered, e.g. `550 5.1.1 User unknown`. */
  diagnostic: string;
  remoteMta: string | null;
  lastAttempt: Date;
}

export interface DsnInput {
  /** The name of this mail system, for Reporting-MTA. */
  reportingMta: string;
  /** The notice comes from MAILER-DAEMON@<this domain> (the sender's domain). */
  domain: string;
  /** The sender of the original message, who gets the notice. */
  to: string;
  original: {
    /** The original's header block, as sent. */
    headers: string;
    messageId: string;
    subject: string;
    arrivalDate: Date;
  };
  recipients: DsnRecipient[];
  date?: Date;
  messageId?: string;
}

const CRLF = '\r\n';
const MAX_FIELD = 900;

/** Keeps a value printable US-ASCII on one line, as the delivery-status fields require. */
function asciiLine(value: string): string {
  return value
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?')
    .trim()
    .slice(0, MAX_FIELD);
}

/** RFC 5322 date-time in UTC: `Sat, 21 Nov 2026 10:00:00 +0000`. */
export function rfc5322Date(d: Date): string {
  return d.toUTCString().replace(/GMT$/, '+0000');
}

/** The RFC 3463 status in an SMTP reply (`550 5.1.1 ...`), else one derived from its class. */
export function enhancedStatus(reply: string, permanent: boolean): string {
  const found = /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(reply.trim())?.[1];
  if (found && found.startsWith(permanent ? '5' : '4')) return found;
  return permanent ? '5.0.0' : '4.0.0';
}

/** The header block of a raw message (everything before the first empty line), CRLF-terminated. */
export function headerBlock(raw: Buffer | string): string {
  const source = typeof raw === 'string' ? raw : raw.toString('utf8');
  const end = /\r?\n\r?\n/.exec(source);
  const head = end ? source.slice(0, end.index) : source;
  return head.replace(/\r?\n/g, CRLF) + CRLF;
}

function textPart(text: string): string {
  const ascii = /^[\x20-\x7e\r\n]*$/.test(text);
  const body = ascii
    ? text
    : (Buffer.from(text, 'utf8')
        .toString('base64')
        .match(/.{1,76}/g)
        ?.join(CRLF) ?? '');
  return [
    `Content-Type: text/plain; charset=${ascii ? 'us-ascii' : 'utf-8'}`,
    `Content-Transfer-Encoding: ${ascii ? '7bit' : 'base64'}`,
    '',
    body,
  ].join(CRLF);
}

function humanText(input: DsnInput): string {
  const lines = [
    `This is the mail system at ${input.reportingMta}.`,
    '',
    'Your message could not be delivered to one or more recipients.',
    'It has been returned undelivered; nothing more will be tried.',
    '',
    `  Subject: ${input.original.subject.replace(/[\r\n]+/g, ' ')}`,
    `  Sent:    ${rfc5322Date(input.original.arrivalDate)}`,
    '',
    ...input.recipients.map((r) => `<${r.recipient}>: ${r.diagnostic.replace(/[\r\n]+/g, ' ')}`),
    '',
    'The delivery status report and the headers of your message follow.',
  ];
  return lines.join(CRLF) + CRLF;
}

function deliveryStatus(input: DsnInput): string {
  const perMessage = [
    `Reporting-MTA: dns; ${asciiLine(input.reportingMta)}`,
    `Original-Envelope-Id: ${asciiLine(input.original.messageId)}`,
    `Arrival-Date: ${rfc5322Date(input.original.arrivalDate)}`,
  ];
  const perRecipient = input.recipients.map((r) =>
    [
      `Final-Recipient: rfc822; ${asciiLine(r.recipient)}`,
      'Action: failed',
      `Status: ${asciiLine(r.status)}`,
      ...(r.remoteMta ? [`Remote-MTA: dns; ${asciiLine(r.remoteMta)}`] : []),
      `Diagnostic-Code: smtp; ${asciiLine(r.diagnostic)}`,
      `Last-Attempt-Date: ${rfc5322Date(r.lastAttempt)}`,
    ].join(CRLF),
  );
  return [perMessage.join(CRLF), ...perRecipient].join(CRLF + CRLF) + CRLF;
}

/**
 * A non-delivery report (RFC 3464): multipart/report with a human-readable part, the
 * machine-readable message/delivery-status part and the original's headers. It answers the
 * original (In-Reply-To), so it lands in the same thread of the sender's mailbox.
 */
export function composeDsn(input: DsnInput): { raw: Buffer; messageId: string } {
  if (input.recipients.length === 0) throw new Error('a delivery report needs at least one recipient');
  const domain = input.domain.trim().toLowerCase();
  const messageId = input.messageId ?? `<dsn-${randomBytes(16).toString('base64url')}@${domain}>`;
  const boundary = `=_dsn_${randomBytes(12).toString('hex')}`;
  const originalId = /^<[^<>\s]+>$/.test(input.original.messageId) ? input.original.messageId : null;
  const headers = [
    'Return-Path: <>',
    `From: Mail Delivery System <MAILER-DAEMON@${domain}>`,
    `To: <${asciiLine(input.to)}>`,
    'Subject: Undelivered Mail Returned to Sender',
    `Date: ${rfc5322Date(input.date ?? new Date())}`,
    `Message-ID: ${messageId}`,
    ...(originalId ? [`In-Reply-To: ${originalId}`, `References: ${originalId}`] : []),
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
  ];
  const original = input.original.headers;
  const parts = [
    textPart(humanText(input)),
    ['Content-Type: message/delivery-status', '', deliveryStatus(input)].join(CRLF),
    [
      'Content-Type: text/rfc822-headers',
      `Content-Transfer-Encoding: ${/^\p{ASCII}*$/u.test(original) ? '7bit' : '8bit'}`,
      '',
      original,
    ].join(CRLF),
  ];
  const body = [
    'This is a MIME-encapsulated message.',
    '',
    ...parts.map((p) => `--${boundary}${CRLF}${p}`),
    `--${boundary}--`,
    '',
  ].join(CRLF);
  return { raw: Buffer.from(headers.join(CRLF) + CRLF + CRLF + body, 'utf8'), messageId };
}
