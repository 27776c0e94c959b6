import { randomBytes } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { MailComposerAttachment, MailComposerOptions } from 'nodemailer/lib/mail-composer/index.js';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { htmlToText } from './html-text.js';

export interface ComposeAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
  contentId?: string | null;
  inline?: boolean;
}

export interface ComposeInput {
  from: { address: string; name?: string };
  to: string[];
  cc?: string[];
  bcc?: string[];
  replyTo?: string[];
  subject: string;
  text?: string;
  html?: string;
  attachments?: ComposeAttachment[];
  /** Extra headers; structural ones are refused (see checkExtraHeaders). */
  headers?: Record<string, string>;
  inReplyTo?: string | null;
  references?: string[];
  /** The sending inbox's domain, used for the Message-ID. */
  messageIdDomain: string;
  /** Defaults to now. */
  date?: Date;
  /** Preset Message-ID, in angle brackets. */
  messageId?: string;
}

export interface ComposedMessage {
  raw: Buffer;
  messageId: string;
  date: Date;
  envelope: { from: string; to: string[] };
}

export const STRUCTURAL_HEADERS: ReadonlySet<string> = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'date',
  'message-id',
  'in-reply-to',
  'references',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'reply-to',
  'sender',
  'return-path',
  'received',
  'dkim-signature',
]);

const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;

export function checkExtraHeaders(h: Record<string, string>): string | null {
  for (const [name, value] of Object.entries(h)) {
    if (!FIELD_NAME.test(name)) return `invalid header name: ${JSON.stringify(name)}`;
    if (STRUCTURAL_HEADERS.has(name.toLowerCase())) return `header ${name} cannot be set as an extra header`;
    if (typeof value !== 'string') return `header ${name} must have a string value`;
    if (/[\r\n\0]/.test(value)) return `header ${name} contains a line break or NUL`;
  }
  return null;
}

export function newMessageId(domain: string): string {
  return `<${randomBytes(24).toString('base64url')}@${domain.trim().toLowerCase()}>`;
}

function bareAddresses(list: string[]): string[] {
  return list.flatMap((entry) => addressparser(entry, { flatten: true }).map((a) => a.address.trim()));
}

function dedupeCaseInsensitive(list: string[]): string[] {
  const seen = new Set<string>();
  return list.filter((a) => {
    const key = a.toLowerCase();
    if (!a || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function toMailAttachment(a: ComposeAttachment): MailComposerAttachment {
  const out: MailComposerAttachment = {
    filename: a.filename,
    contentType: a.contentType,
    content: a.content,
    contentTransferEncoding: 'base64',
    contentDisposition: a.inline ? 'inline' : 'attachment',
  };
  if (a.contentId) out.cid = a.contentId.replace(/[<>]/g, '');
  return out;
}

export async function composeMessage(input: ComposeInput): Promise<ComposedMessage> {
  const headerError = input.headers ? checkExtraHeaders(input.headers) : null;
  if (headerError) throw new Error(headerError);

  const cc = input.cc ?? [];
  const bcc = input.bcc ?? [];
  const recipients = dedupeCaseInsensitive(bareAddresses([...input.to, ...cc, ...bcc]));
  if (recipients.length === 0) throw new Error('a message needs at least one recipient');

  const date = input.date ?? new Date();
  const messageId = input.messageId ?? newMessageId(input.messageIdDomain);
  const text = input.text ?? (input.html !== undefined ? htmlToText(input.html) : '');

  const options: MailComposerOptions = {
    from: input.from.name ? { name: input.from.name, address: input.from.address } : input.from.address,
    to: input.to,
    subject: input.subject,
    date,
    messageId,
    text,
    attachments: (input.attachments ?? []).map(toMailAttachment),
    newline: 'win',
  };
  if (input.html !== undefined) options.html = input.html;
  if (cc.length) options.cc = cc;
  if (bcc.length) options.bcc = bcc;
  if (input.replyTo?.length) options.replyTo = input.replyTo;
  if (input.inReplyTo) options.inReplyTo = input.inReplyTo;
  if (input.references?.length) options.references = input.references;
  if (input.headers && Object.keys(input.headers).length) options.headers = { ...input.headers };

  const node = new MailComposer(options).compile();
  const raw = await node.build();
  return {
    raw,
    messageId: node.messageId(),
    date,
    envelope: { from: input.from.address, to: recipients },
  };
}
