import { z } from '@hono/zod-openapi';
import { STREAM_TOKEN_SECONDS } from '../mailbox/events/stream-token.js';
import { Email } from './emails.js';

/**
 * The event objects webhooks receive and `GET /events` streams (contract 7), one schema per type,
 * so the OpenAPI document (its `webhooks`) and the types generated from it name each one.
 */
const eventId = z.string().openapi({ example: 'evt_9f2kq81', description: 'also the webhook-id header' });
const createdAt = z.string().openapi({ example: '2026-11-21T05:40:00.000Z' });
const account = z.string().openapi({ example: 'agent@mailroom.test', description: 'the inbox' });

const emailNote = 'text and html cut to 64 KB (truncated: true when cut)';

/** An event whose data is the inbox and the Email it is about. */
const emailEvent = <T extends 'email.received' | 'email.sent'>(type: T) =>
  z.object({
    id: eventId,
    type: z.literal(type),
    created_at: createdAt,
    data: z.object({ account, email: Email }).openapi({ description: `email: ${emailNote}` }),
  });

export const EmailReceivedEvent = emailEvent('email.received').openapi('EmailReceivedEvent');
export const EmailSentEvent = emailEvent('email.sent').openapi('EmailSentEvent');

/** A send kept in Outbox and what became of it (contract 15): the Email where it now is. */
const heldEvent = <T extends string, X extends z.ZodRawShape>(type: T, extra: X, description: string) =>
  z.object({
    id: eventId,
    type: z.literal(type),
    created_at: createdAt,
    data: z
      .object({ account, email: Email, approvalId: z.string().nullable(), ...extra })
      .openapi({ description: `${description}; email: ${emailNote}` }),
  });

export const EmailPendingApprovalEvent = heldEvent(
  'email.pending_approval',
  { requestedBy: z.string().nullable(), reason: z.string() },
  'a send waits in Outbox for a person to approve or reject it',
).openapi('EmailPendingApprovalEvent');
export const EmailApprovedEvent = heldEvent(
  'email.approved',
  { decidedBy: z.string().nullable() },
  'a person or a key with approve approved it (email.sent follows when it goes)',
).openapi('EmailApprovedEvent');
export const EmailRejectedEvent = heldEvent(
  'email.rejected',
  { reason: z.string() },
  'it did not go and is back in Drafts: rejected (the reason given), cancelled, expired, or refused by a rule when it went',
).openapi('EmailRejectedEvent');
export const EmailScheduledEvent = heldEvent(
  'email.scheduled',
  { sendAt: z.string() },
  'a send waits in Outbox for its time',
).openapi('EmailScheduledEvent');

export const EmailBouncedEvent = z
  .object({
    id: eventId,
    type: z.literal('email.bounced'),
    created_at: createdAt,
    data: z
      .object({
        account,
        email: Email.optional(),
        bounce: z.object({
          noticeUid: z.number().int().openapi({ description: 'uid of the bounce notice filed in INBOX' }),
          recipients: z.array(
            z.object({
              recipient: z.string(),
              status: z.string().openapi({ example: '5.1.1' }),
              diagnostic: z.string().openapi({ example: '550 5.1.1 User unknown' }),
            }),
          ),
        }),
      })
      .openapi({ description: `email: the sent email, its delivery updated; ${emailNote}` }),
  })
  .openapi('EmailBouncedEvent');

export const InboxLoopDetectedEvent = z
  .object({
    id: eventId,
    type: z.literal('inbox.loop_detected'),
    created_at: createdAt,
    data: z
      .object({
        account,
        address: z.string().openapi({ description: 'the recipient the loop guard refused' }),
        count: z.number().int().openapi({ description: 'messages sent to it within the window' }),
        windowMinutes: z.number().int().openapi({ example: 10 }),
      })
      .openapi({
        description:
          'raised once, at the first send the loop guard refused since it last let mail to this address through',
      }),
  })
  .openapi('InboxLoopDetectedEvent');

export const WebhookTestEvent = z
  .object({
    id: eventId,
    type: z.literal('webhook.test'),
    created_at: createdAt,
    data: z.object({ webhook: z.object({ id: z.string(), url: z.string() }), message: z.string() }),
  })
  .openapi('WebhookTestEvent');

export const MailroomEvent = z
  .discriminatedUnion('type', [
    EmailReceivedEvent,
    EmailSentEvent,
    EmailBouncedEvent,
    InboxLoopDetectedEvent,
    EmailPendingApprovalEvent,
    EmailApprovedEvent,
    EmailRejectedEvent,
    EmailScheduledEvent,
    WebhookTestEvent,
  ])
  .openapi('MailroomEvent');

/** Each event type as an OpenAPI 3.1 webhook: what Mailroom POSTs to a webhook's URL. */
export const EVENT_SCHEMAS = {
  'email.received': EmailReceivedEvent,
  'email.sent': EmailSentEvent,
  'email.bounced': EmailBouncedEvent,
  'inbox.loop_detected': InboxLoopDetectedEvent,
  'email.pending_approval': EmailPendingApprovalEvent,
  'email.approved': EmailApprovedEvent,
  'email.rejected': EmailRejectedEvent,
  'email.scheduled': EmailScheduledEvent,
  'webhook.test': WebhookTestEvent,
} as const;

const tokenAccount = z.string().min(1, 'account must not be empty').optional().openapi({
  example: 'agent@mailroom.test',
  description: 'limit the stream to this inbox (query or JSON body); absent: all of yours',
});

export const StreamTokenQuery = z.object({ account: tokenAccount });
export const StreamTokenBody = z.strictObject({ account: tokenAccount });

export const EventStreamToken = z
  .object({
    token: z.string().openapi({
      description: `opens GET /events?token=... within ${STREAM_TOKEN_SECONDS} s; the stream then lasts while it is open`,
    }),
    expiresAt: z.string().openapi({ description: 'when the token stops opening streams' }),
    account: z.string().nullable().openapi({ description: 'the inbox it is limited to; null: all of yours' }),
  })
  .openapi('EventStreamToken');
