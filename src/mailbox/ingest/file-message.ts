import { emailForEvent } from '../../events/payload.js';
import { withAuthResults, withSpamAction } from '../../mail/screening/screen.js';
import type { Screening } from '../../mail/screening/screen.js';
import { normalizeSubject } from '../../mail/subject.js';
import type { ParsedAddress, ParsedEmail } from '../../mail/types.js';
import type { FolderRow } from '../../store/folders.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { EventRow } from '../../store/events.js';
import type { Store } from '../../store/index.js';
import { nowIso } from '../../store/ids.js';
import { packMessage } from '../../store/message-sources.js';
import type { PackedSource } from '../../store/message-sources.js';
import type { MessageWithBody } from '../../store/messages.js';
import { searchFields } from '../../store/search-fields.js';
import type { DeliveryView, SpamCheckView, UnextractedEmailView } from '../reading/email-view.js';
import { listColumnsOf } from '../../mail/list-columns.js';
import { toUnextractedView } from '../reading/email-view.js';
import { findThread, newThreadId } from './threading.js';

export interface FileInput {
  inbox: InboxRow;
  folder: FolderRow;
  parsed: ParsedEmail;
  raw: Buffer;
  flags: string[];
  receivedAt: Date;
  authResults?: unknown;
  /** rspamd's verdict, when it was asked. */
  spamCheck?: SpamCheckView;
  /** bcc recipients, known only on mail this account sent. */
  bcc?: string[];
  delivery?: DeliveryView[];
  /** Received mail a machine sent (isAutomatic, or a null envelope sender): the Email's autoReply. */
  autoReply?: boolean;
  /** Reuse this uid instead of allocating one (a draft sent keeps its uid). */
  uid?: number;
  threadId?: string;
  /**
   * The stored source of `raw`, filed already in this transaction for another inbox the same
   * delivery reached (its copies share it); absent, the source is stored with this message.
   */
  sourceId?: number;
  /** `raw` and the parsed text and html already compressed (packMessage), where the caller did it ahead of its transaction. */
  packed?: PackedSource;
}

const addressesOf = (list: ParsedAddress[]) => list.map((a) => a.address).filter((a) => a !== '');

/**
 * Stores one parsed message into a folder of an inbox: uid, thread, row, source, attachments,
 * index. Call inside the transaction that also records its events. Answers the row as stored,
 * with its text and html.
 */
export async function fileMessage(store: Store, input: FileInput): Promise<MessageWithBody> {
  const { inbox, parsed } = input;
  const receivedAt = nowIso(input.receivedAt);
  const date = parsed.date ? nowIso(parsed.date) : receivedAt;
  const uid = input.uid ?? (await store.inboxes.allocateUid(inbox.id));
  let newThread = false;
  const threadId =
    input.threadId ??
    (await findThread(store, inbox.id, parsed, parsed.date ?? input.receivedAt)) ??
    (await createThread());

  async function createThread(): Promise<string> {
    const id = newThreadId();
    newThread = true;
    await store.threads.create({
      id,
      inbox_id: inbox.id,
      subject: parsed.subject,
      subject_key: normalizeSubject(parsed.subject),
      last_uid: uid,
      last_date: date,
      created_at: receivedAt,
    });
    return id;
  }

  const to = addressesOf(parsed.to);
  const cc = addressesOf(parsed.cc);
  const bcc = input.bcc ?? [];
  const row: Omit<MessageWithBody, 'id' | 'source_id'> = {
    inbox_id: inbox.id,
    uid,
    folder_id: input.folder.id,
    thread_id: threadId,
    message_id: parsed.messageId,
    in_reply_to: parsed.inReplyTo,
    refs: JSON.stringify(parsed.references),
    from_address: parsed.from?.address ?? '',
    from_name: parsed.from?.name ?? '',
    to_addrs: JSON.stringify(to),
    cc_addrs: JSON.stringify(cc),
    bcc_addrs: JSON.stringify(bcc),
    reply_to: JSON.stringify(addressesOf(parsed.replyTo)),
    subject: parsed.subject,
    date,
    received_at: receivedAt,
    text: parsed.text,
    html: parsed.html,
    size: input.raw.length,
    has_attachments: parsed.attachments.some((a) => !a.inline) ? 1 : 0,
    flags: JSON.stringify(input.flags),
    seen: input.flags.includes('\\Seen') ? 1 : 0,
    auth_results: input.authResults === undefined ? null : JSON.stringify(input.authResults),
    delivery: input.delivery ? JSON.stringify(input.delivery) : null,
    remote_uid: null,
    trashed_at: null,
    address_totals: parsed.addressTotals ? JSON.stringify(parsed.addressTotals) : null,
    spam: input.spamCheck ? JSON.stringify(input.spamCheck) : null,
    auto_reply: input.autoReply ? 1 : 0,
    rejected_reason: null,
    // What a list page shows of the text, worked out once here instead of on every page.
    ...listColumnsOf(parsed.text),
    screening: storedScreening(parsed, input.authResults, input.spamCheck),
  };
  const { text, html, ...stored } = row;
  const { id, sourceId } = await store.messages.insert(
    stored,
    input.sourceId ?? input.packed ?? (await packMessage(input.raw, { text, html })),
    attachmentRowsOf(parsed),
    searchFields(row.subject, row.from_name, row.from_address, [...to, ...cc, ...bcc], text),
  );
  // A thread made for this message already has its uid and date as the last.
  if (!newThread) await store.threads.touch(threadId, uid, date);
  await store.correspondents.add(
    inbox.id,
    correspondentsOf(input.folder, row.from_address, [...to, ...cc, ...bcc]),
  );
  // The row as stored, without reading it back; a test compares it with the database's copy.
  return { ...row, id, source_id: sourceId };
}

/**
 * Whom filing a message into `folder` shows the inbox exchanged mail with (contract 15,
 * approve_new): the recipients of what it sent, the sender of what it received outside Spam.
 */
export function correspondentsOf(folder: FolderRow, from: string, recipients: string[]): string[] {
  switch (folder.special_use) {
    case '\\Sent':
      return recipients;
    case '\\Junk':
    case '\\Drafts':
    case '\\Outbox':
      return [];
    default:
      return from ? [from] : [];
  }
}

/**
 * What screening found in a received message: what its parse found, its DMARC outcome and
 * rspamd's verdict. Undefined for mail that was not screened (a sent copy).
 */
export function screeningOf(
  parsed: ParsedEmail,
  authResults: unknown,
  spamCheck: SpamCheckView | undefined,
): Screening | undefined {
  if (!parsed.screening) return undefined;
  return withSpamAction(withAuthResults(parsed.screening, authResults), spamCheck?.action);
}

/** The screening stored with a message; NULL on mail that was not screened: it reads as clear. */
function storedScreening(parsed: ParsedEmail, authResults: unknown, spamCheck: SpamCheckView | undefined) {
  const screening = screeningOf(parsed, authResults, spamCheck);
  return screening ? JSON.stringify(screening) : null;
}

/**
 * Records `email.received` or `email.sent` for a message just filed. The event row refers to the
 * message for its text and html instead of holding a second copy (see EventStore.append).
 */
export async function appendEmailEvent(
  store: Store,
  type: 'email.received' | 'email.sent',
  inbox: InboxRow,
  row: { id: number },
  view: UnextractedEmailView,
): Promise<EventRow> {
  return store.events.append({
    type,
    userId: inbox.user_id,
    inboxId: inbox.id,
    data: { account: inbox.address, email: emailForEvent(view) },
    bodyOf: row.id,
    spam: type === 'email.received' && view.folder === 'Spam',
  });
}

/** The full Email view of a message just filed (attachments from the parse, no labels yet). */
export function viewOfFiled(
  row: MessageWithBody,
  folder: FolderRow,
  parsed: ParsedEmail,
  sentByAccount: boolean,
): UnextractedEmailView {
  return toUnextractedView(row, {
    folderName: folder.name,
    mode: 'full',
    sentByAccount,
    labels: [],
    attachments: attachmentRowsOf(parsed).map((a) => ({ message_id: row.id, ...a })),
  });
}

/** The attachments rows of a parsed message, as stored (without their message's id). */
function attachmentRowsOf(parsed: ParsedEmail) {
  return parsed.attachments.map((a) => ({
    attachment_id: a.id,
    filename: a.filename,
    content_type: a.contentType,
    size: a.size,
    content_id: a.contentId,
    inline: a.inline ? 1 : 0,
  }));
}
