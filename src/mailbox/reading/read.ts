import type { z } from '@hono/zod-openapi';
import type { Caller } from '../caller.js';
import type { ListEmailsQuery, ThreadSummary as ThreadSummarySchema } from '../../contract/emails.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { ListedMessageRow, MessageRow, MessageWithBody } from '../../store/messages.js';
import { requireInbox, requireInboxFolder, requireMessage } from '../access.js';
import type { InboxFolderLookup } from '../access.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { MailboxDeps } from '../deps.js';
import type { EmailView } from './email-view.js';
import { previewOf } from '../../mail/list-columns.js';
import { toEmailView } from './email-view.js';
import { NotFound, ValidationFailed } from '../errors.js';

/** A list's filters as `GET /emails` takes them (without its wait), and a wait's own bound. */
export type ListQuery = Omit<z.infer<typeof ListEmailsQuery>, 'wait'> & {
  /** Only mail with a uid above this one (not in the HTTP API: how a wait asks for new mail only). */
  afterUid?: number;
};

export async function listEmails(
  deps: MailboxDeps,
  caller: Caller,
  query: ListQuery,
  started?: InboxFolderLookup,
): Promise<{ emails: EmailView[]; nextCursor: string | null }> {
  const { inbox, folder } = await requireInboxFolder(
    deps,
    caller,
    query.account,
    query.folder ?? 'INBOX',
    started,
  );
  let labelId: string | undefined;
  if (query.label !== undefined) {
    const label = await deps.store.labels.resolve(caller.userId, query.label);
    // As an unknown folder is: a misspelt label must not read as "no mail".
    if (!label) throw new NotFound(`no label ${JSON.stringify(query.label)}`);
    labelId = label.id;
  }
  const rows = await deps.store.messages.list({
    inboxId: inbox.id,
    folderId: folder.id,
    unread: query.unread,
    from: query.from,
    to: query.to,
    subject: query.subject,
    since: query.since,
    before: query.before,
    hasAttachments: query.hasAttachments,
    threadId: query.threadId,
    labelId,
    words: query.q !== undefined ? searchWords(query.q) : undefined,
    beforeUid: query.cursor !== undefined ? decodeCursor(query.cursor, 'uid') : undefined,
    afterUid: query.afterUid,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const emails = await viewsOf(deps, inbox, page, () => folder.name, 'list');
  const last = page[page.length - 1];
  return { emails, nextCursor: rows.length > query.limit && last ? encodeCursor('uid', last.uid) : null };
}

export async function readEmail(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  uid: number,
  folderName?: string,
): Promise<EmailView> {
  const inbox = await requireInbox(deps, caller, account);
  const { message, folder } = await requireMessage(deps, inbox, uid, folderName);
  return (await viewsOf(deps, inbox, [message], () => folder.name, 'full'))[0]!;
}

/** Email views for rows of one inbox, with attachments and labels fetched in one query each. */
export async function viewsOf(
  deps: MailboxDeps,
  inbox: InboxRow,
  rows: (MessageRow | ListedMessageRow)[],
  folderName: (row: { folder_id: number }) => string,
  mode: 'full' | 'list',
): Promise<EmailView[]> {
  // A listed row says whether it has any: a page without attachments or labels asks for none.
  const attachmentIds = rows
    .filter((r) => !('has_attachment_rows' in r) || r.has_attachment_rows)
    .map((r) => r.id);
  const labelledIds = rows.filter((r) => !('has_labels' in r) || r.has_labels).map((r) => r.id);
  // Side by side: on PostgreSQL (outside a transaction) three connections, one round trip's wait.
  const [attachments, labels, bodies] = await Promise.all([
    deps.store.messages.attachmentsOf(attachmentIds),
    deps.store.messages.labelsOf(labelledIds),
    mode === 'full' ? deps.store.messages.bodies(rows.map((r) => r.id)) : undefined,
  ]);
  return rows.map((row) =>
    toEmailView(withBody(row, bodies), {
      folderName: folderName(row),
      attachments: attachments.get(row.id) ?? [],
      labels: labels.get(row.id) ?? [],
      mode,
      sentByAccount: row.from_address.toLowerCase() === inbox.address.toLowerCase(),
    }),
  );
}

/** The row with its text and html, where they were read. */
function withBody(
  row: MessageRow,
  bodies: Map<number, { text: string; html: string }> | undefined,
): MessageRow | MessageWithBody {
  const body = bodies?.get(row.id);
  return body ? { ...row, ...body } : row;
}

/** The stored source; with `folderName`, only when the email is in that folder. */
export async function readRaw(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  uid: number,
  folderName?: string,
): Promise<Buffer> {
  const inbox = await requireInbox(deps, caller, account);
  const { message } = await requireMessage(deps, inbox, uid, folderName);
  const raw = await deps.store.messages.raw(message.id);
  if (!raw) throw new NotFound(`email ${uid} has no stored source`);
  return raw;
}

export async function readAttachment(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  uid: number,
  attachmentId: string,
  folderName?: string,
): Promise<{ filename: string; contentType: string; content: Buffer }> {
  const raw = await readRaw(deps, caller, account, uid, folderName);
  const found = await deps.parser.attachment(raw, attachmentId);
  if (!found) throw new NotFound(`email ${uid} has no attachment ${JSON.stringify(attachmentId)}`);
  return { filename: found.filename, contentType: found.contentType, content: found.content };
}

export async function listFolders(deps: MailboxDeps, caller: Caller, account: string) {
  const inbox = await requireInbox(deps, caller, account);
  return (await deps.store.folders.listWithCounts(inbox.id)).map((f) => ({
    name: f.name,
    specialUse: f.special_use,
    total: f.total,
    unread: f.unread,
  }));
}

export type ThreadSummary = z.infer<typeof ThreadSummarySchema>;

export async function listThreads(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  limit: number,
  cursor?: string,
): Promise<{ threads: ThreadSummary[]; nextCursor: string | null }> {
  const inbox = await requireInbox(deps, caller, account);
  const rows = await deps.store.threads.list(
    inbox.id,
    cursor !== undefined ? decodeCursor(cursor, 'thread') : undefined,
    limit + 1,
  );
  const page = rows.slice(0, limit);
  const threads: ThreadSummary[] = [];
  for (const t of page) {
    const latest = (await deps.store.messages.list({ inboxId: inbox.id, threadId: t.id, limit: 1 }))[0];
    threads.push({
      threadId: t.id,
      subject: t.subject,
      participants: await deps.store.threads.participants(t.id),
      messageCount: t.message_count,
      unreadCount: t.unread_count,
      lastDate: t.last_date,
      preview: latest ? (latest.preview ?? previewOf(latest.list_text)) : '',
    });
  }
  const last = page[page.length - 1];
  return { threads, nextCursor: rows.length > limit && last ? encodeCursor('thread', last.last_uid) : null };
}

export async function readThread(deps: MailboxDeps, caller: Caller, account: string, threadId: string) {
  const inbox = await requireInbox(deps, caller, account);
  const thread = await deps.store.threads.get(inbox.id, threadId);
  if (!thread) throw new NotFound(`no thread ${JSON.stringify(threadId)} in ${inbox.address}`);
  const rows = (await deps.store.messages.list({ inboxId: inbox.id, threadId, limit: 1000 })).reverse();
  if (rows.length === 0) throw new NotFound(`no thread ${JSON.stringify(threadId)} in ${inbox.address}`);
  // Looked up ahead, each folder once: viewsOf names a row's folder synchronously.
  const folderNames = new Map<number, string>();
  for (const row of rows) {
    if (!folderNames.has(row.folder_id))
      folderNames.set(row.folder_id, (await deps.store.folders.get(row.folder_id))?.name ?? '');
  }
  const folderName = (row: { folder_id: number }) => folderNames.get(row.folder_id)!;
  return {
    threadId,
    subject: thread.subject,
    messages: await viewsOf(deps, inbox, rows, folderName, 'list'),
  };
}

/** The words of what a user typed: runs of letters and digits, whatever else it holds. */
export function searchWords(q: string): string[] {
  const words = q.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) throw ValidationFailed.field('q', 'q must contain at least one letter or digit');
  return words;
}
