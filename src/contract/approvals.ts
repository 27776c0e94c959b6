import { z } from '@hono/zod-openapi';
import { Email } from './emails.js';
import { account, limitQuery } from './common.js';

/** A send waiting for a person (contract 15): `data.approvals[]` of GET /approvals. */
export const Approval = z
  .object({
    id: z.string().openapi({ example: 'apr_4Jx0c2s9', description: 'what approve and reject take' }),
    account: z.string().openapi({ example: 'agent@mailroom.test' }),
    email: Email.openapi({ description: 'the message as it will go, in Outbox (bcc included)' }),
    requestedBy: z
      .string()
      .nullable()
      .openapi({ description: 'the id of the key that sent it; null when a person did' }),
    reason: z
      .string()
      .openapi({ description: 'why it waits: the mode and, for approve_new, the new recipients' }),
    sendAt: z.string().nullable().openapi({ description: 'a scheduled send: when it goes once approved' }),
    expiresAt: z.string().openapi({ description: 'not decided by then, it goes back to Drafts (expired)' }),
    created_at: z.string(),
  })
  .openapi('Approval');

export type ApprovalView = z.infer<typeof Approval>;

export const ApprovalsQuery = z.object({
  account: account.optional().openapi({ description: 'one inbox; absent: every inbox the key reaches' }),
  limit: limitQuery,
});

export const ApprovalParams = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'apr_4Jx0c2s9' }),
});

export const RejectBody = z
  .strictObject({
    reason: z.string().trim().min(1).max(500).optional().openapi({
      description:
        "why: the Email's rejectedReason in Drafts and the email.rejected event's reason (default rejected)",
    }),
  })
  .openapi('RejectApproval');

/** What approve and reject answer. */
export const Decision = z
  .object({
    id: z.string(),
    account: z.string(),
    decision: z.enum(['approved', 'rejected']),
    status: z.enum(['sent', 'scheduled', 'rejected']).openapi({
      description: 'sent: it went; scheduled: approved, it goes at sendAt; rejected: it is in Drafts',
    }),
    email: Email.openapi({ description: 'the message where it now is: Sent, Outbox or Drafts' }),
  })
  .openapi('ApprovalDecision');

export type DecisionView = z.infer<typeof Decision>;
