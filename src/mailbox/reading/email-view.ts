import type { z } from '@hono/zod-openapi';
import type { Attachment, Email, SpamCheck } from '../../contract/emails.js';
import { extractReplyHtml } from '../../mail/extract-reply-html.js';
import { extractReplyText } from '../../mail/extract-reply.js';
import { LIST_TEXT_LIMIT, previewOf } from '../../mail/list-columns.js';
import { CLEAR } from '../../mail/screening/screen.js';
import type { AttachmentRow, LabelRef, MessageRow, MessageWithBody } from '../../store/messages.js';

/** The Email object of the API (source 2.1 plus contract 4), as src/contract/emails.ts declares it. */
export type EmailView = z.infer<typeof Email>;
export type AttachmentView = z.infer<typeof Attachment>;
export type DeliveryView = NonNullable<EmailView['delivery']>[number];
/** rspamd's verdict on a received message, as the Email carries it. */
export type SpamCheckView = z.infer<typeof SpamCheck>;

/**
 * An Email before its extractedText and extractedHtml are worked out: what an event stores
 * (events/payload.ts adds them as the event goes out) and what a send shapes its answer from.
 */
export type UnextractedEmailView = Omit<EmailView, 'extractedText' | 'extractedHtml'>;

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
}

/**
 * The Email view of a row: read whole (`full`, from a row with its text and html) or as a list
 * shows it (from the row's list_text, preview and list_extracted_text alone).
 */
export function toEmailView(row: MessageRow | MessageWithBody, ctx: ViewContext): EmailView {
  const view = toUnextractedView(row, ctx);
  // Added to the view rather than spread into a copy: Node 20's V8 made that copy of a ~30-field
  // object in the old generation, ~700 bytes of garbage per view that only a full collection
  // frees (a page's 50 views: a full collection every ~300 pages, the list's p99 on PostgreSQL).
  if (view.html === undefined) {
    // A list reads its text's first 501 characters only, and the extracted text as a list shows
    // it (listColumnsOf), stored when the message was filed.
    const stored = storedExtractedText(row);
    return Object.assign(view, { extractedText: view.truncated ? stored.slice(0, LIST_TEXT_LIMIT) : stored });
  }
  return Object.assign(view, {
    extractedText: extractReplyText(view.text),
    extractedHtml: view.html === '' ? '' : extractReplyHtml(view.html),
  });
}

/** The Email view of a row without the extracted reply: the ingest path must not pay for it. */
export function toUnextractedView(row: MessageRow | MessageWithBody, ctx: ViewContext): UnextractedEmailView {
  const whole = ctx.mode === 'full' && 'html' in row;
  const text = whole ? row.text : row.list_text;
  const view: UnextractedEmailView = {
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
    spam: row.spam ? (JSON.parse(row.spam) as SpamCheckView) : null,
    // Mail not screened (sent copies, mail stored before screening) reads as clear.
    screening: row.screening ? (JSON.parse(row.screening) as EmailView['screening']) : CLEAR,
    autoReply: row.auto_reply === 1,
  };
  if (ctx.sentByAccount) view.bcc = JSON.parse(row.bcc_addrs) as string[];
  if (row.delivery) view.delivery = JSON.parse(row.delivery) as DeliveryView[];
  if (row.rejected_reason) view.rejectedReason = row.rejected_reason;
  if (row.address_totals) view.addressTotals = JSON.parse(row.address_totals) as EmailView['addressTotals'];
  if (whole) view.html = row.html;
  else if (text.length > LIST_TEXT_LIMIT) {
    view.text = text.slice(0, LIST_TEXT_LIMIT);
    view.truncated = true;
  }
  return view;
}
