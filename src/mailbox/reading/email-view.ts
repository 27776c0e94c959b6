import { extractReplyHtml } from '../../mail/extract-reply-html.js';
import { extractReplyText } from '../../mail/extract-reply.js';
import { LIST_TEXT_LIMIT, previewOf } from '../../mail/list-columns.js';
import type { AddressTotals } from '../../mail/types.js';
import type { AttachmentRow, LabelRef, MessageRow, MessageWithBody } from '../../store/messages.js';

export interface AttachmentView {
  id: string;
  filename: string;
  contentType: string;
  size: number;
  contentId: string | null;
  inline: boolean;
}

export interface DeliveryView {
  recipient: string;
  status: string;
}

/** The Email object of the API (source 2.1 plus contract 4). */
export interface EmailView {
  uid: number;
  messageId: string;
  threadId: string;
  folder: string;
  from: string;
  fromName: string;
  to: string[];
  cc: string[];
  bcc?: string[];
  replyTo: string[];
  subject: string;
  date: string;
  receivedAt: string;
  text: string;
  html?: string;
  truncated?: boolean;
  /** The new content of `text`: without the quoted history and the signature (cut as `text` is in lists). */
  extractedText?: string;
  /** The same for `html`, where `html` is given. */
  extractedHtml?: string;
  preview: string;
  size: number;
  flags: string[];
  labels: LabelRef[];
  attachments: AttachmentView[];
  inReplyTo: string | null;
  references: string[];
  authResults: unknown;
  delivery?: DeliveryView[];
  /** Only when an address list was cut to its first entries: the whole count of each cut list. */
  addressTotals?: AddressTotals;
}

/** A list row's extractedText from its stored columns: NULL where it is the list text's start. */
const storedExtractedText = (row: MessageRow): string =>
  row.list_extracted_text ?? row.list_text.slice(0, LIST_TEXT_LIMIT);

export interface ViewContext {
  folderName: string;
  attachments: AttachmentRow[];
  labels: LabelRef[];
  /** `full` for a single read (text and html whole); `list` cuts text and omits html. */
  mode: 'full' | 'list';
  /** bcc is shown only on mail this account sent. */
  sentByAccount: boolean;
  /**
   * Whether to work out extractedText and extractedHtml (default true). Events leave them out:
   * their Email is made on the ingest path, which must not pay for it.
   */
  extract?: boolean;
}

/**
 * The Email view of a row: read whole (`full`, from a row with its text and html) or as a list
 * shows it (from the row's list_text, preview and list_extracted_text alone).
 */
export function toEmailView(row: MessageRow | MessageWithBody, ctx: ViewContext): EmailView {
  const whole = ctx.mode === 'full' && 'html' in row;
  const text = whole ? row.text : row.list_text;
  const view: EmailView = {
    uid: row.uid,
    messageId: row.message_id,
    threadId: row.thread_id,
    folder: ctx.folderName,
    from: row.from_address,
    fromName: row.from_name,
    to: JSON.parse(row.to_addrs) as string[],
    cc: JSON.parse(row.cc_addrs) as string[],
    replyTo: JSON.parse(row.reply_to) as string[],
    subject: row.subject,
    date: row.date,
    receivedAt: row.received_at,
    text,
    preview: row.preview ?? previewOf(text),
    size: row.size,
    flags: JSON.parse(row.flags) as string[],
    labels: ctx.labels,
    attachments: ctx.attachments.map((a) => ({
      id: a.attachment_id,
      filename: a.filename,
      contentType: a.content_type,
      size: a.size,
      contentId: a.content_id,
      inline: a.inline === 1,
    })),
    inReplyTo: row.in_reply_to,
    references: JSON.parse(row.refs) as string[],
    authResults: row.auth_results ? (JSON.parse(row.auth_results) as unknown) : null,
  };
  if (ctx.sentByAccount) view.bcc = JSON.parse(row.bcc_addrs) as string[];
  if (row.delivery) view.delivery = JSON.parse(row.delivery) as DeliveryView[];
  if (row.address_totals) view.addressTotals = JSON.parse(row.address_totals) as AddressTotals;
  const extract = ctx.extract ?? true;
  // A list reads its text's first 501 characters only, and the extracted text as a list shows it
  // (listColumnsOf), stored when the message was filed.
  if (extract) view.extractedText = whole ? extractReplyText(text) : storedExtractedText(row);
  if (whole) {
    view.html = row.html;
    if (extract) view.extractedHtml = row.html === '' ? '' : extractReplyHtml(row.html);
  } else if (text.length > LIST_TEXT_LIMIT) {
    view.text = text.slice(0, LIST_TEXT_LIMIT);
    view.truncated = true;
    if (view.extractedText !== undefined && view.extractedText.length > LIST_TEXT_LIMIT)
      view.extractedText = view.extractedText.slice(0, LIST_TEXT_LIMIT);
  }
  return view;
}
