import { z } from '@hono/zod-openapi';
import { cancelSend, listApprovals } from '../mailbox/approvals/approvals.js';
import { inbox, uid } from './field-descriptions.js';
import type { McpTool } from './tool-kit.js';
import { defineTool } from './tool-kit.js';

/** What a send tool says when the mail did not go yet (contract 15): an agent must not think it left. */
export function withHeldNote<T extends { status?: string; approvalId?: string; sendAt?: string }>(
  result: T,
): T & { note?: string } {
  if (result.status === 'pending_approval') {
    return {
      ...result,
      note:
        `NOT SENT YET: this email waits in Outbox for a person to approve it (approvalId ${result.approvalId}); ` +
        'nothing has left. It goes out only if approved, and comes back to Drafts if rejected or not decided in time. ' +
        'list_pending shows what waits.',
    };
  }
  if (result.status === 'scheduled') {
    return {
      ...result,
      note: `NOT SENT YET: this email waits in Outbox and goes out at ${result.sendAt}; cancel_send brings it back to Drafts.`,
    };
  }
  return result;
}

export const approvalTools: McpTool[] = [
  defineTool({
    name: 'list_pending',
    permission: 'read',
    description:
      'The emails you sent that wait for a person to approve them (in Outbox, nothing left yet), oldest first, ' +
      'each with why it waits and when it expires.',
    annotations: {
      title: 'List sends waiting for approval',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    params: {
      account: inbox.optional().describe('one inbox; omitted: every inbox you reach'),
      limit: z.number().int().min(1).max(100).optional().describe('at most this many, 1 to 100 (default 20)'),
    },
    run: async ({ deps, caller }, p) => ({
      approvals: await listApprovals(deps, caller, { account: p.account, limit: p.limit ?? 20 }),
    }),
  }),
  defineTool({
    name: 'cancel_send',
    action: 'email.cancel',
    permission: 'send',
    description: 'Cancels a scheduled send, or one waiting for approval: it comes back to Drafts, not sent.',
    annotations: {
      title: 'Cancel a waiting send',
      readOnlyHint: false,
      destructiveHint: false,
      // A second cancel of the same send finds nothing waiting and changes nothing.
      idempotentHint: true,
      openWorldHint: false,
    },
    params: {
      account: inbox,
      uid: uid.describe('the uid of the send in Outbox (the uid its send answered)'),
    },
    run: async ({ deps, caller }, p) => ({ email: await cancelSend(deps, caller, p.account, p.uid) }),
  }),
];
