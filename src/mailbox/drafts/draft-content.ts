import type { z } from '@hono/zod-openapi';
import type { CreateDraftBody } from '../../contract/send.js';
import type { ComposeAttachment } from '../../mail/compose.js';
import { htmlToText } from '../../mail/html-text.js';
import { parseEmail } from '../../mail/parse.js';
import { planReply } from '../../mail/reply.js';
import type { ParsedEmail } from '../../mail/types.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';
import type { Recipients } from '../sending/outgoing-input.js';
import {
  InputProblems,
  checkRecipientCount,
  distinctAddresses,
  readAttachments,
  readRecipients,
  recipientsOf,
} from '../sending/outgoing-input.js';

/** Fields of a draft as the API takes them; on update, only those given change. */
export type DraftFields = Omit<z.infer<typeof CreateDraftBody>, 'account'>;

/** What a draft holds, read back from its MIME. */
export interface DraftState {
  fromName: string;
  to: Recipients;
  cc: Recipients;
  bcc: Recipients;
  subject: string;
  text?: string;
  html?: string;
  attachments: ComposeAttachment[];
  inReplyTo: string | null;
  references: string[];
  /** Absent on a new draft (one is made) and on a synced one that had none. */
  messageId?: string;
}

export const EMPTY_DRAFT: DraftState = {
  fromName: '',
  to: { entries: [], addresses: [] },
  cc: { entries: [], addresses: [] },
  bcc: { entries: [], addresses: [] },
  subject: '',
  attachments: [],
  inReplyTo: null,
  references: [],
};

export function stateOf(parsed: ParsedEmail): DraftState {
  return {
    fromName: parsed.from?.name ?? '',
    to: recipientsOf(parsed.to),
    cc: recipientsOf(parsed.cc),
    bcc: recipientsOf(parsed.bcc),
    subject: parsed.subject,
    text: parsed.text,
    ...(parsed.html ? { html: parsed.html } : {}),
    attachments: parsed.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      contentId: a.contentId,
      inline: a.inline,
    })),
    inReplyTo: parsed.inReplyTo,
    references: parsed.references,
    ...(parsed.messageIdGenerated ? {} : { messageId: parsed.messageId }),
  };
}

const sameText = (a: string, b: string) => a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim();

/** Applies the given fields over a draft's state; a text that was only derived from the html follows a new html. */
export async function mergeDraft(
  deps: MailboxDeps,
  inbox: InboxRow,
  state: DraftState,
  fields: DraftFields,
): Promise<DraftState> {
  const problems = new InputProblems();
  const next: DraftState = { ...state };
  if (fields.to !== undefined) next.to = readRecipients(fields.to, 'to', problems);
  if (fields.cc !== undefined) next.cc = readRecipients(fields.cc, 'cc', problems);
  if (fields.bcc !== undefined) next.bcc = readRecipients(fields.bcc, 'bcc', problems);
  if (fields.subject !== undefined) next.subject = fields.subject;
  if (fields.html !== undefined && fields.text === undefined && state.html !== undefined) {
    if (state.text === undefined || sameText(state.text, htmlToText(state.html))) delete next.text;
  }
  if (fields.text !== undefined) next.text = fields.text;
  if (fields.html !== undefined) next.html = fields.html;
  if (fields.attachments !== undefined) {
    next.attachments = readAttachments(fields.attachments, deps.config.maxMessageBytes, problems);
  }
  if (fields.inReplyTo === null) {
    next.inReplyTo = null;
    next.references = [];
  } else if (fields.inReplyTo !== undefined) {
    const thread = await threadingFrom(deps, inbox, fields.inReplyTo);
    if (!thread) problems.add('inReplyTo', `no email with uid ${fields.inReplyTo} in ${inbox.address}`);
    else {
      next.inReplyTo = thread.inReplyTo;
      next.references = thread.references;
      if (fields.subject === undefined && !state.subject) next.subject = thread.subject;
    }
  }
  const count = distinctAddresses(next.to.addresses, next.cc.addresses, next.bcc.addresses).length;
  checkRecipientCount(count, deps.config.maxRecipients, problems);
  problems.throwIfAny();
  return next;
}

async function threadingFrom(deps: MailboxDeps, inbox: InboxRow, uid: number) {
  const original = await deps.store.messages.getByUid(inbox.id, uid);
  const raw = original ? await deps.store.messages.raw(original.id) : undefined;
  if (!original || !raw) return null;
  const parsed = await parseEmail(raw);
  const plan = planReply(parsed, {
    selfAddress: inbox.address,
    replyAll: false,
    includeOriginal: false,
    originalDate: parsed.date ?? new Date(original.date),
  });
  return { inReplyTo: plan.inReplyTo, references: plan.references, subject: plan.subject };
}

/** What the composer needs from a draft's state, for saving it and for sending it alike. */
export function composeInputOf(deps: MailboxDeps, inbox: InboxRow, state: DraftState) {
  return {
    from: { address: inbox.address, name: state.fromName || inbox.display_name },
    to: state.to.entries,
    cc: state.cc.entries,
    bcc: state.bcc.entries,
    subject: state.subject,
    ...(state.text !== undefined ? { text: state.text } : {}),
    ...(state.html !== undefined ? { html: state.html } : {}),
    attachments: state.attachments,
    inReplyTo: state.inReplyTo,
    references: state.references,
    messageIdDomain: inbox.address.split('@')[1] ?? deps.config.domain,
    ...(state.messageId ? { messageId: state.messageId } : {}),
  };
}
