import { z } from '@hono/zod-openapi';
import { isoDateQuery } from '../contract/common.js';
import { ListEmailsQuery } from '../contract/emails.js';
import { listAccounts } from '../mailbox/reading/accounts.js';
import { listEmails, listThreads, readAttachment, readEmail, readThread } from '../mailbox/reading/read.js';
import { WAIT_MAX_SECONDS, waitForEmails } from '../mailbox/events/wait-for-email.js';
import { cursor, inbox, inFolder, limit, LIST_FILTERS, uid } from './field-descriptions.js';
import type { Hints, McpTool } from './tool-kit.js';
import { defineTool } from './tool-kit.js';

/** Reads change nothing, so a repeat has no further effect; they stay inside this server. */
const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} satisfies Omit<Hints, 'title'>;

/** Attachments up to this size come back inline; larger ones as a link to the HTTP API. */
export const INLINE_ATTACHMENT_BYTES = 256 * 1024;

/** list_emails: the HTTP list query, with JSON booleans for its flags and without `wait`. */
const { wait: _wait, ...listFilters } = ListEmailsQuery.shape;
const listShape = {
  ...listFilters,
  account: inbox,
  limit,
  cursor,
  unread: z.boolean().optional().describe('only unread (true) or only read (false) mail'),
  hasAttachments: z.boolean().optional().describe('only mail with (true) or without (false) attachments'),
};

export const readingTools: McpTool[] = [
  defineTool({
    name: 'list_inboxes',
    permission: 'read',
    description: 'The inboxes this API key reaches: their addresses are the `account` of every other tool.',
    annotations: { title: 'List inboxes', ...READ_ONLY },
    params: {},
    run: async ({ deps, caller }) => ({ accounts: await listAccounts(deps, caller) }),
  }),
  defineTool({
    name: 'list_emails',
    permission: 'read',
    description:
      'A page of emails in a folder (INBOX by default), newest first, with filters. Each email has ' +
      '`extractedText`: its new content without quoted history or signature. Text is cut to 500 characters; ' +
      'read_email gives the whole.',
    annotations: { title: 'List emails', ...READ_ONLY },
    params: listShape,
    fields: LIST_FILTERS,
    run: ({ deps, caller }, query) => listEmails(deps, caller, { ...query, limit: query.limit ?? 20 }),
  }),
  defineTool({
    name: 'read_email',
    permission: 'read',
    description:
      'One email with its full text and html (and extractedText/extractedHtml). Reading does not mark it read.',
    annotations: { title: 'Read an email', ...READ_ONLY },
    params: { account: inbox, uid, folder: inFolder },
    run: async ({ deps, caller }, p) => ({
      email: await readEmail(deps, caller, p.account, p.uid, p.folder ?? 'INBOX'),
    }),
  }),
  defineTool({
    name: 'wait_for_email',
    permission: 'read',
    description:
      'The newest email in the folder matching the filters: at once when one is already there, else as soon as ' +
      'one arrives, else email: null (with ended) after timeout seconds. To wait only for mail still to come, ' +
      'give since (e.g. the time you triggered it) or filters that only that mail matches. The same wait as ' +
      'GET /emails?wait= and the embedded and client waitForEmail.',
    annotations: { title: 'Wait for an email', ...READ_ONLY },
    params: {
      account: inbox,
      folder: listFilters.folder,
      from: listFilters.from,
      subject: listFilters.subject,
      q: listFilters.q,
      since: isoDateQuery.optional().describe('ISO 8601: only mail received at or after this time counts'),
      timeout: z.number().int().min(1).max(WAIT_MAX_SECONDS).optional().describe('seconds, default 60'),
    },
    fields: { ...LIST_FILTERS, folder: 'the folder to watch (INBOX when omitted)' },
    run: async ({ deps, caller, signal }, { timeout, ...filters }) => {
      const options = { timeoutMs: (timeout ?? 60) * 1000, signal };
      const { emails, end } = await waitForEmails(deps, caller, { ...filters, limit: 1 }, options);
      return { email: emails[0] ?? null, ...(emails.length === 0 ? { ended: end } : {}) };
    },
  }),
  defineTool({
    name: 'list_threads',
    permission: 'read',
    description: 'Conversations of an inbox, most recent activity first.',
    annotations: { title: 'List threads', ...READ_ONLY },
    params: { account: inbox, limit, cursor },
    run: ({ deps, caller }, p) => listThreads(deps, caller, p.account, p.limit ?? 20, p.cursor),
  }),
  defineTool({
    name: 'read_thread',
    permission: 'read',
    description: 'One conversation: its emails oldest first, across folders.',
    annotations: { title: 'Read a thread', ...READ_ONLY },
    params: {
      account: inbox,
      threadId: z
        .string()
        .min(1)
        .max(100)
        .describe('the conversation: threadId of an email or of list_threads'),
    },
    run: ({ deps, caller }, p) => readThread(deps, caller, p.account, p.threadId),
  }),
  defineTool({
    name: 'get_attachment',
    permission: 'read',
    description:
      `An attachment of an email (ids are in the email's attachments). Up to ${INLINE_ATTACHMENT_BYTES / 1024} KB ` +
      'it comes inline as an embedded resource; larger ones as a link to the HTTP API (Bearer key needed).',
    annotations: { title: 'Get an attachment', ...READ_ONLY },
    params: {
      account: inbox,
      uid,
      attachmentId: z
        .string()
        .min(1)
        .max(64)
        .describe('the id of the attachment, from the attachments of the email'),
      folder: inFolder,
    },
    run: async ({ deps, caller, apiBase }, p) => {
      const found = await readAttachment(deps, caller, p.account, p.uid, p.attachmentId, p.folder);
      const query = `account=${encodeURIComponent(p.account)}`;
      const url = `${apiBase}/emails/${p.uid}/attachments/${encodeURIComponent(p.attachmentId)}?${query}`;
      const meta = { name: found.filename, mimeType: found.contentType };
      if (found.content.length > INLINE_ATTACHMENT_BYTES) {
        return {
          content: [
            {
              type: 'resource_link' as const,
              uri: url,
              ...meta,
              description: `${found.content.length} bytes: GET it with the Authorization: Bearer key`,
            },
          ],
        };
      }
      const resource = { uri: url, mimeType: found.contentType, blob: found.content.toString('base64') };
      return { content: [{ type: 'resource' as const, resource }] };
    },
  }),
];
