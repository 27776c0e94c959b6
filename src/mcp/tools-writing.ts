import { z } from '@hono/zod-openapi';
import { account } from '../http/schemas/common.js';
import { CreateLabelBody } from '../http/schemas/labels.js';
import { ApplyLabelsBody, UpdateEmailBody } from '../http/schemas/organise.js';
import { CreateDraftBody, ForwardBody, ReplyBody, SendBody, UpdateDraftBody } from '../http/schemas/send.js';
import { createDraft, deleteDraft, sendDraft, updateDraft } from '../mailbox/drafts/drafts.js';
import { applyLabels, createLabel, listLabels } from '../mailbox/organising/labels.js';
import { deleteEmail, updateEmail } from '../mailbox/organising/organise.js';
import { forwardEmail, replyToEmail } from '../mailbox/sending/reply-forward.js';
import { sendEmail } from '../mailbox/sending/send.js';
import type { McpTool } from './tool-kit.js';
import { defineTool } from './tool-kit.js';
import { inFolder, uid } from './tools-reading.js';

/** Sends mail to the world: not read-only, not undoable, and a retry sends again. */
const SENDS = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
const CHANGES = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };

export const writingTools: McpTool[] = [
  defineTool({
    name: 'send_email',
    description:
      'Sends an email from one of your inboxes (`from`). Needs text, html or attachments (base64). Local ' +
      'recipients get it at once; others are queued (or captured, in sandbox mode).',
    annotations: { title: 'Send an email', ...SENDS },
    params: {},
    body: SendBody,
    run: ({ deps, userId }, _p, body) => sendEmail(deps, userId, body),
  }),
  defineTool({
    name: 'reply_to_email',
    description:
      'Replies to an email (replyAll for everyone), threading it and quoting the original unless ' +
      'includeOriginal is false. Needs text or html.',
    annotations: { title: 'Reply to an email', ...SENDS },
    params: { account, uid, folder: inFolder },
    body: ReplyBody,
    run: ({ deps, userId }, source, body) => replyToEmail(deps, userId, source, body),
  }),
  defineTool({
    name: 'forward_email',
    description: 'Forwards an email to `to`, with its attachments unless includeAttachments is false.',
    annotations: { title: 'Forward an email', ...SENDS },
    params: { account, uid, folder: inFolder },
    body: ForwardBody,
    run: ({ deps, userId }, source, body) => forwardEmail(deps, userId, source, body),
  }),
  defineTool({
    name: 'update_email',
    description:
      'Marks an email read or unread, flags or unflags it, or moves it (action move with folder, the destination).',
    annotations: { title: 'Update an email', ...CHANGES, idempotentHint: true },
    params: { account, uid },
    body: UpdateEmailBody,
    run: async ({ deps, userId }, ref, change) => ({ email: await updateEmail(deps, userId, ref, change) }),
  }),
  defineTool({
    name: 'delete_email',
    description:
      'Moves an email to Trash; one already in Trash, a draft, or any with permanent: true is deleted for good.',
    annotations: { title: 'Delete an email', ...CHANGES, destructiveHint: true, idempotentHint: false },
    params: { account, uid, folder: inFolder, permanent: z.boolean().optional() },
    run: ({ deps, userId }, { permanent, ...ref }) => deleteEmail(deps, userId, ref, { permanent }),
  }),
  defineTool({
    name: 'create_draft',
    description: 'Saves a draft in Drafts (inReplyTo: uid of the email it answers, for threading).',
    annotations: { title: 'Create a draft', ...CHANGES, idempotentHint: false },
    params: { account },
    body: CreateDraftBody,
    run: async ({ deps, userId }, p, fields) => ({
      draft: await createDraft(deps, userId, p.account, fields),
    }),
  }),
  defineTool({
    name: 'update_draft',
    description: 'Changes a draft: the fields given replace, the others stay.',
    annotations: { title: 'Update a draft', ...CHANGES, idempotentHint: true },
    params: { account, uid },
    body: UpdateDraftBody,
    run: async ({ deps, userId }, p, fields) => ({
      draft: await updateDraft(deps, userId, p.account, p.uid, fields),
    }),
  }),
  defineTool({
    name: 'send_draft',
    description: 'Sends a draft; it moves from Drafts to Sent keeping its uid.',
    annotations: { title: 'Send a draft', ...SENDS },
    params: { account, uid },
    run: ({ deps, userId }, p) => sendDraft(deps, userId, p.account, p.uid),
  }),
  defineTool({
    name: 'delete_draft',
    description: 'Deletes a draft without sending it.',
    annotations: { title: 'Delete a draft', ...CHANGES, destructiveHint: true, idempotentHint: false },
    params: { account, uid },
    run: ({ deps, userId }, p) => deleteDraft(deps, userId, p.account, p.uid),
  }),
  defineTool({
    name: 'list_labels',
    description: 'Your labels, newest first.',
    annotations: { title: 'List labels', readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    params: {
      limit: z.number().int().min(1).max(100).optional(),
      cursor: z.string().optional(),
    },
    run: ({ deps, userId }, p) => listLabels(deps, userId, p.limit ?? 20, p.cursor),
  }),
  defineTool({
    name: 'create_label',
    description:
      'Creates a label (names are unique per user, whatever the case); a colour is picked when omitted.',
    annotations: { title: 'Create a label', ...CHANGES, idempotentHint: false },
    params: {},
    body: CreateLabelBody,
    run: async ({ deps, userId }, _p, body) => ({ label: await createLabel(deps, userId, body) }),
  }),
  defineTool({
    name: 'label_email',
    description: 'Puts labels (ids or names) on an email; labels it already has are kept once.',
    annotations: { title: 'Label an email', ...CHANGES, idempotentHint: true },
    params: { account, uid, folder: inFolder },
    body: ApplyLabelsBody,
    run: async ({ deps, userId }, ref, body) => ({
      email: await applyLabels(deps, userId, ref, body.labels),
    }),
  }),
];
