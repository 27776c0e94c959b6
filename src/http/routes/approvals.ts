import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { approveSend, cancelSend, listApprovals, rejectSend } from '../../mailbox/approvals/approvals.js';
import { Approval, ApprovalParams, ApprovalsQuery, Decision, RejectBody } from '../../contract/approvals.js';
import { AccountQuery, ErrorResponse, UidParam, envelope } from '../../contract/common.js';
import { Email } from '../../contract/emails.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { commonErrors, json } from '../route-docs.js';
import { audited } from '../route-audit.js';
import { needs } from '../route-permission.js';
import { sendingErrors } from './send.js';

const tags = ['Approvals'];
// Spelled out rather than okResponse(): its `as const` trips the typing of async handlers.
const decisionResponses = {
  200: {
    description: 'Decided: sent (Sent), approved for its sendAt (Outbox), or rejected (Drafts)',
    content: { 'application/json': { schema: envelope(Decision) } },
  },
  ...commonErrors,
  403: {
    description: 'The key lacks approve, does not reach the inbox, or requested this send itself',
    content: json(ErrorResponse),
  },
  409: {
    description: 'Already decided (approved, rejected, cancelled, expired or sent)',
    content: json(ErrorResponse),
  },
};

const list = createRoute({
  method: 'get',
  path: '/approvals',
  operationId: 'listApprovals',
  tags,
  summary: 'Sends waiting for a person to approve them, oldest first (needs read)',
  ...needs('read'),
  request: { query: ApprovalsQuery },
  responses: {
    200: {
      description: 'The waiting sends, each with the whole message',
      content: { 'application/json': { schema: envelope(z.object({ approvals: z.array(Approval) })) } },
    },
    ...commonErrors,
  },
});

const approve = createRoute({
  method: 'post',
  path: '/approvals/{id}/approve',
  operationId: 'approveSend',
  ...audited('approval.approve'),
  tags,
  summary: 'Approve a waiting send: it goes out now (or at its sendAt); never by the key that requested it',
  description:
    'Lists and limits are checked again as it goes: a refusal is the answer (its own status and code) and the ' +
    'message moves to Drafts with rejectedReason, as if rejected.',
  ...needs('approve'),
  request: { params: ApprovalParams },
  responses: { ...decisionResponses, 429: sendingErrors[429], 502: sendingErrors[502] },
});

const reject = createRoute({
  method: 'post',
  path: '/approvals/{id}/reject',
  operationId: 'rejectSend',
  ...audited('approval.reject'),
  tags,
  summary:
    'Reject a waiting send: it moves to Drafts with rejectedReason; never by the key that requested it',
  ...needs('approve'),
  // The body is optional: a reject without a reason needs none.
  request: { params: ApprovalParams, body: { content: json(RejectBody), required: false } },
  responses: decisionResponses,
});

const cancel = createRoute({
  method: 'post',
  path: '/emails/{id}/cancel',
  operationId: 'cancelSend',
  ...audited('email.cancel'),
  tags: ['Sending'],
  summary:
    'Cancel a scheduled or waiting send: it moves from Outbox back to Drafts (rejectedReason cancelled)',
  ...needs('send'),
  request: { params: UidParam, query: AccountQuery },
  responses: {
    200: {
      description: 'The message, now in Drafts',
      content: { 'application/json': { schema: envelope(z.object({ email: Email })) } },
    },
    ...commonErrors,
    409: { description: 'It was decided, sent or cancelled meanwhile', content: json(ErrorResponse) },
  },
});

export function registerApprovalRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    return ok(c, { approvals: await listApprovals(c.var.deps, c.var.caller, query) });
  });
  app.openapi(approve, async (c) => {
    return ok(c, await approveSend(c.var.deps, c.var.caller, c.req.valid('param').id));
  });
  app.openapi(reject, async (c) => {
    const reason = (c.req.valid('json') as { reason?: string } | undefined)?.reason;
    return ok(c, await rejectSend(c.var.deps, c.var.caller, c.req.valid('param').id, reason));
  });
  app.openapi(cancel, async (c) => {
    const { id } = c.req.valid('param');
    return ok(c, { email: await cancelSend(c.var.deps, c.var.caller, c.req.valid('query').account, id) });
  });
}
