import { z } from '@hono/zod-openapi';
import { account } from '../contract/common.js';

/**
 * What the inputs of the tools mean, said to an agent. The tools reuse the HTTP API's schemas,
 * whose own words are OpenAPI metadata that the tools' JSON Schema does not show; the inputs
 * several tools share are described here once (tool-kit refuses a tool with an input left
 * undescribed).
 */

/** The inbox a tool acts on. */
export const inbox = account.describe('the inbox to use: one of your addresses, as list_inboxes gives them');

export const uid = z
  .number()
  .int()
  .positive()
  .describe('the uid of the email, from list_emails, read_email or wait_for_email');

export const inFolder = z
  .string()
  .min(1)
  .optional()
  .describe('the folder the email is in; when omitted it is found by uid alone (read_email: INBOX)');

export const limit = z.number().int().min(1).max(100).optional().describe('page size, 1 to 100 (default 20)');
export const cursor = z.string().optional().describe('nextCursor of the previous page, for the next one');

/** list_emails' filters and wait_for_email's (the HTTP list query's fields). */
export const LIST_FILTERS = {
  folder: 'the folder to look in (INBOX when omitted)',
  from: 'only mail whose sender address or name contains this (any case)',
  to: 'only mail whose To or Cc contains this (any case)',
  subject: 'only mail whose subject contains this (any case)',
  since: 'ISO 8601: only mail received at or after this time',
  before: 'ISO 8601: only mail dated before this time',
  label: 'only mail with this label (its id or name)',
  threadId: 'only the emails of this conversation (the threadId of an email or of list_threads)',
  q: 'full-text search over subject, addresses and body',
};

export const SEND_AT =
  'send later: an ISO 8601 time in the future, at most 365 days ahead (e.g. 2026-12-01T09:00:00Z); ' +
  'the email waits in Outbox until then';

export const ADDRESSES = 'an address ("a@example.com" or "Name <a@example.com>") or a list of them';

/** The fields of a message being written: send_email, create_draft and update_draft. */
export const MESSAGE_FIELDS = {
  to: `recipients: ${ADDRESSES}`,
  cc: `copy recipients: ${ADDRESSES}`,
  bcc: `blind copy recipients, hidden from the others: ${ADDRESSES}`,
  subject: 'the subject line',
  text: 'the plain-text body',
  html: 'the HTML body',
  attachments:
    'files to attach: [{filename, content (the bytes in base64), contentType?, contentId? and inline? ' +
    'for an image the html shows as cid:}]',
};

/** What a reply or a forward may add to the email it answers. */
export const ADDED_TO_ANSWER = {
  cc: MESSAGE_FIELDS.cc,
  bcc: MESSAGE_FIELDS.bcc,
  attachments: MESSAGE_FIELDS.attachments,
};
