import { createRoute } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { forwardEmail, replyToEmail } from '../../mailbox/sending/reply-forward.js';
import { sendEmail } from '../../mailbox/sending/send.js';
import type { AppEnv } from '../context.js';
import { needs } from '../route-permission.js';
import { audited } from '../route-audit.js';
import { ok } from '../envelope.js';
import { ErrorResponse, UidParam, envelope } from '../../contract/common.js';
import {
  ForwardBody,
  IdempotencyHeader,
  ReplyBody,
  ReplyResult,
  SendBody,
  SendResult,
  SourceQuery,
} from '../../contract/send.js';
import { commonErrors, jsonBody, remoteErrors, sendResponses, sendStatus } from '../route-docs.js';

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorResponse } },
});

/** Errors every sending route may add to the common ones. */
export const sendingErrors = {
  409: error(
    'The Idempotency-Key was used with a different request, or sending from the inbox is paused (inbox_paused)',
  ),
  429: error(
    'A send limit (rate_limited, naming perHour or perDay) or the loop guard (loop_detected) refused it: retry after Retry-After',
  ),
  413: error('The message is over the size limit'),
  422: error('The inbox cannot send'),
  502: remoteErrors[502],
} as const;

const send = createRoute({
  method: 'post',
  path: '/emails/send',
  operationId: 'sendEmail',
  tags: ['Sending'],
  summary: 'Send an email from one of your inboxes',
  description:
    'Local recipients get it at once; others are queued for delivery (or captured in sandbox mode). ' +
    'A copy goes to Sent with `\\Seen`; bcc is kept on that copy only.',
  ...needs('send'),
  ...audited('email.send'),
  request: { headers: IdempotencyHeader, ...jsonBody(SendBody) },
  responses: {
    ...sendResponses(envelope(SendResult), 'The sent email'),
    ...commonErrors,
    ...sendingErrors,
  },
});

const reply = createRoute({
  method: 'post',
  path: '/emails/{id}/reply',
  operationId: 'replyToEmail',
  tags: ['Sending'],
  summary: 'Reply (or reply all) to an email',
  description: 'Sets In-Reply-To and References, quotes the original by default, flags it `\\Answered`.',
  ...needs('send'),
  ...audited('email.reply'),
  request: { params: UidParam, query: SourceQuery, headers: IdempotencyHeader, ...jsonBody(ReplyBody) },
  responses: {
    ...sendResponses(envelope(ReplyResult), 'The reply as sent'),
    ...commonErrors,
    ...sendingErrors,
  },
});

const forward = createRoute({
  method: 'post',
  path: '/emails/{id}/forward',
  operationId: 'forwardEmail',
  tags: ['Sending'],
  summary: 'Forward an email, with its attachments by default',
  ...needs('send'),
  ...audited('email.forward'),
  request: { params: UidParam, query: SourceQuery, headers: IdempotencyHeader, ...jsonBody(ForwardBody) },
  responses: {
    ...sendResponses(envelope(ReplyResult), 'The forward as sent'),
    ...commonErrors,
    ...sendingErrors,
  },
});

export function registerSendRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(send, async (c) => {
    const idempotencyKey = c.req.valid('header')['idempotency-key'];
    const result = await sendEmail(c.var.deps, c.var.caller, c.req.valid('json'), { idempotencyKey });
    return ok(c, result, sendStatus(result));
  });

  app.openapi(reply, async (c) => {
    const { id } = c.req.valid('param');
    const idempotencyKey = c.req.valid('header')['idempotency-key'];
    const source = { ...c.req.valid('query'), account: c.var.account, uid: id };
    const { account: _, ...body } = c.req.valid('json');
    const result = await replyToEmail(c.var.deps, c.var.caller, source, body, { idempotencyKey });
    return ok(c, result, sendStatus(result));
  });

  app.openapi(forward, async (c) => {
    const { id } = c.req.valid('param');
    const idempotencyKey = c.req.valid('header')['idempotency-key'];
    const source = { ...c.req.valid('query'), account: c.var.account, uid: id };
    const { account: _, ...body } = c.req.valid('json');
    const result = await forwardEmail(c.var.deps, c.var.caller, source, body, { idempotencyKey });
    return ok(c, result, sendStatus(result));
  });
}
