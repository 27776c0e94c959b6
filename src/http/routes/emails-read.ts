import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { listEmails, readAttachment, readEmail, readRaw } from '../../mailbox/reading/read.js';
import { waitForEmails } from '../../mailbox/events/wait-for-email.js';
import { TooManyWaits } from '../../mailbox/events/wait-slots.js';
import type { AppEnv } from '../context.js';
import { needs } from '../route-permission.js';
import { ok } from '../envelope.js';
import { UidParam, envelope } from '../../contract/common.js';
import {
  AttachmentParams,
  DownloadQuery,
  Email,
  ListEmailsQuery,
  ReadEmailQuery,
} from '../../contract/emails.js';
import { commonErrors, okResponse } from '../route-docs.js';

const list = createRoute({
  method: 'get',
  path: '/emails',
  operationId: 'listEmails',
  tags: ['Emails'],
  summary: 'List emails in a folder, newest first; with wait=N, long-poll for the first matching mail',
  ...needs('read'),
  request: { query: ListEmailsQuery },
  responses: {
    ...okResponse(
      envelope(z.object({ emails: z.array(Email), nextCursor: z.string().nullable() })),
      'A page of emails',
    ),
    ...commonErrors,
  },
});

const read = createRoute({
  method: 'get',
  path: '/emails/{id}',
  operationId: 'getEmail',
  tags: ['Emails'],
  summary: 'Read one email with its full text and html',
  ...needs('read'),
  request: { params: UidParam, query: ReadEmailQuery },
  responses: { ...okResponse(envelope(z.object({ email: Email })), 'The email'), ...commonErrors },
});

/** Downloads name their file: an ASCII `filename` and an RFC 5987 `filename*`. */
const download = {
  'Content-Disposition': {
    description: 'attachment; filename="..."; filename*=UTF-8\'\'...',
    schema: { type: 'string' as const },
  },
};

const raw = createRoute({
  method: 'get',
  path: '/emails/{id}/raw',
  operationId: 'getRawEmail',
  tags: ['Emails'],
  summary: 'The message as received or sent (message/rfc822)',
  ...needs('read'),
  request: { params: UidParam, query: DownloadQuery },
  responses: {
    200: {
      description: 'The raw message',
      headers: download,
      content: { 'message/rfc822': { schema: z.string().openapi({ format: 'binary' }) } },
    },
    ...commonErrors,
  },
});

const attachment = createRoute({
  method: 'get',
  path: '/emails/{id}/attachments/{attachmentId}',
  operationId: 'getAttachment',
  tags: ['Emails'],
  summary: 'Download an attachment',
  ...needs('read'),
  request: { params: AttachmentParams, query: DownloadQuery },
  responses: {
    200: {
      description: "The attachment's bytes, with the media type the message gave it (its `contentType`)",
      headers: download,
      content: { '*/*': { schema: z.string().openapi({ format: 'binary' }) } },
    },
    ...commonErrors,
  },
});

/** A filename safe in a header: ASCII fallback plus RFC 5987 UTF-8 form. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function registerEmailReadRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) => {
    const { wait, ...query } = c.req.valid('query');
    if (wait === undefined)
      return ok(c, await listEmails(c.var.deps, c.var.caller, query, c.var.listLookAhead));
    const options = { timeoutMs: wait * 1000, signal: c.req.raw.signal };
    const { end, ...page } = await waitForEmails(c.var.deps, c.var.caller, query, options).catch(
      (error: unknown) => {
        if (error instanceof TooManyWaits) c.header('Retry-After', String(error.retryAfterSeconds));
        throw error;
      },
    );
    // Ended by the server stopping: the client should reconnect, not keep this connection.
    if (end === 'shutdown') c.header('Connection', 'close');
    return ok(c, page);
  });

  app.openapi(read, async (c) => {
    const { id } = c.req.valid('param');
    const { account, folder } = c.req.valid('query');
    return ok(c, { email: await readEmail(c.var.deps, c.var.caller, account, id, folder ?? 'INBOX') });
  });

  app.openapi(raw, async (c) => {
    const { id } = c.req.valid('param');
    const { account, folder } = c.req.valid('query');
    const bytes = await readRaw(c.var.deps, c.var.caller, account, id, folder);
    return c.body(new Uint8Array(bytes), 200, {
      'Content-Type': 'message/rfc822',
      'Content-Disposition': contentDisposition(`email-${id}.eml`),
    });
  });

  app.openapi(attachment, async (c) => {
    const { id, attachmentId } = c.req.valid('param');
    const { account, folder } = c.req.valid('query');
    const found = await readAttachment(c.var.deps, c.var.caller, account, id, attachmentId, folder);
    return c.body(new Uint8Array(found.content), 200, {
      'Content-Type': found.contentType,
      'Content-Disposition': contentDisposition(found.filename),
    });
  });
}
