import { z } from '@hono/zod-openapi';
import { CreateLabelBody } from '../contract/labels.js';
import { ApplyLabelsBody, UpdateEmailBody } from '../contract/organise.js';
import { CreateDraftBody, ForwardBody, ReplyBody, SendBody, UpdateDraftBody } from '../contract/send.js';
import { createDraft, deleteDraft, sendDraft, updateDraft } from '../mailbox/drafts/drafts.js';
import { applyLabels, createLabel, listLabels } from '../mailbox/organising/labels.js';
import { deleteEmail, updateEmail } from '../mailbox/organising/organise.js';
import { forwardEmail, replyToEmail } from '../mailbox/sending/reply-forward.js';
import { sendEmail } from '../mailbox/sending/send.js';
import {
  ADDED_TO_ANSWER,
  ADDRESSES,
  cursor,
  inbox,
  inFolder,
  limit,
  MESSAGE_FIELDS,
  SEND_AT,
  uid,
} from './field-descriptions.js';
import { withHeldNote } from './tools-approvals.js';
import type { Hints, McpTool } from './tool-kit.js';
import { defineTool } from './tool-kit.js';

/**
 * Sends mail to the world: it adds a message and loses nothing, and a retry sends it again.
 * The others change your own mailbox (on an IMAP server of yours, for a connected inbox) and
 * reach no one else; each says whether it can lose something and whether a repeat does more.
 */
const SENDS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} satisfies Omit<Hints, 'title'>;
const CHANGES = { readOnlyHint: false, openWorldHint: false } as const;

/** A draft's fields: those given replace, the others stay. */
const DRAFT_FIELDS = {
  ...MESSAGE_FIELDS,
  inReplyTo: 'the uid of the email this draft answers, to thread it (null: none)',
};

const sendAt = z.string().optional().describe(SEND_AT);

export const writingTools: McpTool[] = [
  defineTool({
    name: 'send_email',
    action: 'email.send',
    permission: 'send',
    description:
      'Sends an email from one of your inboxes (`from`). Needs text, html or attachments (base64). Local ' +
      'recipients get it at once; others are queued (or captured, in sandbox mode). When the inbox asks for ' +
      'approval, or with sendAt, it is not sent yet: the answer says so (status, note).',
    annotations: { title: 'Send an email', ...SENDS },
    params: {},
    body: SendBody,
    fields: {
      ...MESSAGE_FIELDS,
      from: 'the inbox to send from, one of your addresses (list_inboxes); "Name <address>" sets the name shown',
      replyTo: `where replies should go: ${ADDRESSES}`,
      headers:
        'extra headers, e.g. {"X-Ticket": "42"}; not those Mailroom writes itself (From, To, Subject...)',
      sendAt: SEND_AT,
    },
    run: async ({ deps, caller }, _p, body) => withHeldNote(await sendEmail(deps, caller, body)),
  }),
  defineTool({
    name: 'reply_to_email',
    action: 'email.reply',
    permission: 'send',
    description:
      'Replies to an email (replyAll for everyone), threading it and quoting the original unless ' +
      'includeOriginal is false. Needs text or html.',
    annotations: { title: 'Reply to an email', ...SENDS },
    params: { account: inbox, uid, folder: inFolder },
    body: ReplyBody,
    fields: {
      ...ADDED_TO_ANSWER,
      text: 'the reply in plain text (text or html is needed)',
      html: 'the reply in HTML (text or html is needed)',
      replyAll: 'true: to the sender and every other recipient; false (default): to the sender only',
      includeOriginal: 'quote the email below the reply (default true)',
      sendAt: SEND_AT,
    },
    run: async ({ deps, caller }, source, body) =>
      withHeldNote(await replyToEmail(deps, caller, source, body)),
  }),
  defineTool({
    name: 'forward_email',
    action: 'email.forward',
    permission: 'send',
    description: 'Forwards an email to `to`, with its attachments unless includeAttachments is false.',
    annotations: { title: 'Forward an email', ...SENDS },
    params: { account: inbox, uid, folder: inFolder },
    body: ForwardBody,
    fields: {
      ...ADDED_TO_ANSWER,
      to: `who to forward it to: ${ADDRESSES}`,
      text: 'a note in plain text above the forwarded email',
      html: 'a note in HTML above the forwarded email',
      includeAttachments: 'forward the attachments of the email too (default true)',
      sendAt: SEND_AT,
    },
    run: async ({ deps, caller }, source, body) =>
      withHeldNote(await forwardEmail(deps, caller, source, body)),
  }),
  defineTool({
    name: 'update_email',
    action: 'email.update',
    permission: 'organise',
    description:
      'Marks an email read or unread, flags or unflags it, or moves it (action move with folder, the destination).',
    annotations: { title: 'Update an email', ...CHANGES, destructiveHint: false, idempotentHint: true },
    params: { account: inbox, uid },
    body: UpdateEmailBody,
    fields: {
      action: 'read or unread (\\Seen), flag or unflag (\\Flagged), or move (with folder)',
      folder: 'with action move: the folder to move it to (it must exist)',
    },
    run: async ({ deps, caller }, ref, change) => ({ email: await updateEmail(deps, caller, ref, change) }),
  }),
  defineTool({
    name: 'delete_email',
    action: 'email.delete',
    permission: 'organise',
    description:
      'Moves an email to Trash; one already in Trash, a draft, or any with permanent: true is deleted for good.',
    annotations: { title: 'Delete an email', ...CHANGES, destructiveHint: true, idempotentHint: false },
    params: {
      account: inbox,
      uid,
      folder: inFolder,
      permanent: z.boolean().optional().describe('true: delete for good at once instead of moving to Trash'),
    },
    run: ({ deps, caller }, { permanent, ...ref }) => deleteEmail(deps, caller, ref, { permanent }),
  }),
  defineTool({
    name: 'create_draft',
    action: 'draft.create',
    permission: 'send',
    description: 'Saves a draft in Drafts (inReplyTo: uid of the email it answers, for threading).',
    annotations: { title: 'Create a draft', ...CHANGES, destructiveHint: false, idempotentHint: false },
    params: { account: inbox },
    body: CreateDraftBody,
    fields: DRAFT_FIELDS,
    run: async ({ deps, caller }, p, fields) => ({
      draft: await createDraft(deps, caller, p.account, fields),
    }),
  }),
  defineTool({
    name: 'update_draft',
    action: 'draft.update',
    permission: 'send',
    description: 'Changes a draft: the fields given replace, the others stay.',
    annotations: { title: 'Update a draft', ...CHANGES, destructiveHint: true, idempotentHint: true },
    params: { account: inbox, uid },
    body: UpdateDraftBody,
    fields: DRAFT_FIELDS,
    run: async ({ deps, caller }, p, fields) => ({
      draft: await updateDraft(deps, caller, p.account, p.uid, fields),
    }),
  }),
  defineTool({
    name: 'send_draft',
    action: 'draft.send',
    permission: 'send',
    description: 'Sends a draft; it moves from Drafts to Sent keeping its uid.',
    annotations: { title: 'Send a draft', ...SENDS, idempotentHint: true },
    params: { account: inbox, uid, sendAt },
    run: async ({ deps, caller }, p) =>
      withHeldNote(await sendDraft(deps, caller, p.account, p.uid, p.sendAt ? { sendAt: p.sendAt } : {})),
  }),
  defineTool({
    name: 'delete_draft',
    action: 'draft.delete',
    permission: 'send',
    description: 'Deletes a draft without sending it.',
    annotations: { title: 'Delete a draft', ...CHANGES, destructiveHint: true, idempotentHint: true },
    params: { account: inbox, uid },
    run: ({ deps, caller }, p) => deleteDraft(deps, caller, p.account, p.uid),
  }),
  defineTool({
    name: 'list_labels',
    permission: 'read',
    description: 'Your labels, newest first.',
    annotations: {
      title: 'List labels',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    params: { limit, cursor },
    run: ({ deps, caller }, p) => listLabels(deps, caller, p.limit ?? 20, p.cursor),
  }),
  defineTool({
    name: 'create_label',
    action: 'label.create',
    permission: 'organise',
    description:
      'Creates a label (names are unique per user, whatever the case); a colour is picked when omitted.',
    annotations: { title: 'Create a label', ...CHANGES, destructiveHint: false, idempotentHint: true },
    params: {},
    body: CreateLabelBody,
    fields: {
      name: 'the name, unique among your labels whatever the case',
      color: '#RRGGBB; one is picked when omitted',
      description: 'what the label is for (null for none)',
    },
    run: async ({ deps, caller }, _p, body) => ({ label: await createLabel(deps, caller, body) }),
  }),
  defineTool({
    name: 'label_email',
    action: 'email.label',
    permission: 'organise',
    description: 'Puts labels (ids or names) on an email; labels it already has are kept once.',
    annotations: { title: 'Label an email', ...CHANGES, destructiveHint: false, idempotentHint: true },
    params: { account: inbox, uid, folder: inFolder },
    body: ApplyLabelsBody,
    fields: { labels: 'the labels to put on it: ids or names (create_label makes new ones)' },
    run: async ({ deps, caller }, ref, body) => ({
      email: await applyLabels(deps, caller, ref, body.labels),
    }),
  }),
];
