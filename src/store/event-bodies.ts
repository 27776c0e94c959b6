import type { Db } from '../db/connection.js';
import { previewOf } from '../mail/list-columns.js';
import type { MessageRow } from './messages.js';
import { BODY_COLUMNS, unpackBody } from './message-sources.js';

/** Text and html in an event are cut to this many characters, and the email flagged `truncated`. */
export const EVENT_BODY_LIMIT = 64 * 1024;

export interface EventEmailBody {
  text: string;
  html?: string;
  truncated?: boolean;
  /** Worked out from the text (previewOf), so stored empty beside it and put back with it. */
  preview?: string;
}

/** The email with this text and html, cut to the event limit; `truncated: true` when cut. */
export function withEventBody<T extends EventEmailBody>(email: T, text: string, html: string | undefined): T {
  const cutText = text.length > EVENT_BODY_LIMIT ? text.slice(0, EVENT_BODY_LIMIT) : text;
  const cutHtml =
    html !== undefined && html.length > EVENT_BODY_LIMIT ? html.slice(0, EVENT_BODY_LIMIT) : html;
  const truncated = cutText !== text || cutHtml !== html;
  const { truncated: _dropped, ...rest } = email;
  return {
    ...rest,
    text: cutText,
    ...(cutHtml !== undefined ? { html: cutHtml } : {}),
    ...(truncated ? { truncated: true } : {}),
  } as T;
}

/**
 * The Email fields an event reads back from its message's row: what filing wrote
 * there once and nothing updates (the header fields, the thread, what the SMTP door recorded),
 * by the column each comes from. Folder, flags, labels, delivery and the rest can change after
 * the event, so the event keeps them as they were. About 500 of an event's ~830 bytes.
 */
const FROM_ROW = {
  messageId: (r) => r.message_id,
  threadId: (r) => r.thread_id,
  from: (r) => r.from_address,
  fromName: (r) => r.from_name,
  to: (r) => JSON.parse(r.to_addrs) as unknown,
  cc: (r) => JSON.parse(r.cc_addrs) as unknown,
  replyTo: (r) => JSON.parse(r.reply_to) as unknown,
  subject: (r) => r.subject,
  date: (r) => r.date,
  receivedAt: (r) => r.received_at,
  size: (r) => r.size,
  inReplyTo: (r) => r.in_reply_to,
  references: (r) => JSON.parse(r.refs) as unknown,
  authResults: (r) => (r.auth_results ? (JSON.parse(r.auth_results) as unknown) : null),
  autoReply: (r) => r.auto_reply === 1,
} satisfies Record<string, (row: RowFields) => unknown>;

/** The columns FROM_ROW reads. */
const ROW_COLUMNS = [
  'message_id',
  'thread_id',
  'from_address',
  'from_name',
  'to_addrs',
  'cc_addrs',
  'reply_to',
  'subject',
  'date',
  'received_at',
  'size',
  'in_reply_to',
  'refs',
  'auth_results',
  'auto_reply',
] as const satisfies readonly (keyof MessageRow)[];
type RowFields = Pick<MessageRow, (typeof ROW_COLUMNS)[number]>;

/**
 * The order of an Email's fields (toUnextractedView's): the fields read back go where they were,
 * so an event reads back as it was sent, byte for byte. A field not named here keeps its place
 * after these.
 */
const EMAIL_ORDER = [
  'uid',
  'messageId',
  'threadId',
  'folder',
  'from',
  'fromName',
  'to',
  'cc',
  'replyTo',
  'subject',
  'date',
  'receivedAt',
  'text',
  'preview',
  'size',
  'flags',
  'labels',
  'attachments',
  'inReplyTo',
  'references',
  'authResults',
  'spam',
  'screening',
  'autoReply',
];

/**
 * The event body as stored when its email's text and html are read from the message instead:
 * without them, the preview (worked out from the text) and the fields of FROM_ROW.
 */
export function withoutEventBody(payload: { data: { email: EventEmailBody } }): unknown {
  const email = withEventBody(
    payload.data.email,
    '',
    payload.data.email.html === undefined ? undefined : '',
  ) as EventEmailBody & Record<string, unknown>;
  if (email.preview !== undefined) email.preview = '';
  for (const field of Object.keys(FROM_ROW)) delete email[field];
  return { ...payload, data: { ...payload.data, email } };
}

/** `email` with the fields of FROM_ROW read from `row`, each in its place. */
function withRowFields(email: Record<string, unknown>, row: RowFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of EMAIL_ORDER) {
    const fromRow = FROM_ROW[field as keyof typeof FROM_ROW];
    if (fromRow) out[field] = fromRow(row);
    else if (field in email) out[field] = email[field];
  }
  for (const [field, value] of Object.entries(email)) if (!(field in out)) out[field] = value;
  return out;
}

/**
 * A stored event body with what it reads from message `bodyOf` put back in: the text, html and
 * preview, and the fields of FROM_ROW (an event stored by an earlier version holds those itself).
 */
export async function fillEventBody(db: Db, payload: string, bodyOf: number | null): Promise<string> {
  if (bodyOf === null) return payload;
  const row = await db.rawFirst<RowFields & { body: Buffer; joint: Buffer | null }>(
    `SELECT ${ROW_COLUMNS.map((c) => `m.${c}`).join(', ')}, ${BODY_COLUMNS} FROM messages m JOIN message_sources s ON s.id = m.source_id
      WHERE m.id = ?`,
    bodyOf,
  );
  // Cannot happen: a message is only deleted after its body was written back into its events.
  if (!row) return payload;
  const body = unpackBody(row.body, row.joint);
  const event = JSON.parse(payload) as { data: { email: EventEmailBody & Record<string, unknown> } };
  const stored = event.data.email;
  const email = 'messageId' in stored ? stored : (withRowFields(stored, row) as typeof stored);
  event.data.email = withEventBody(email, body.text, email.html === undefined ? undefined : body.html);
  if (email.preview !== undefined) event.data.email.preview = previewOf(body.text);
  return JSON.stringify(event);
}
