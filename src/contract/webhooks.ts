import { z } from '@hono/zod-openapi';
import { EVENT_KINDS } from '../mailbox/events/webhooks.js';
import { atLeastOneOf, limitQuery } from './common.js';

const eventKind = z.enum(EVENT_KINDS).openapi({ example: 'email.received' });

const url = z.string().min(1, 'url is required').max(2048).openapi({
  example: 'https://agent.example.com/hooks/mail',
  description: 'http or https, on a public address',
});

const events = z
  .array(eventKind)
  .min(1, 'subscribe to at least one event kind')
  .openapi({ description: 'event kinds to deliver' });

const accounts = z
  .array(z.string().min(1))
  .min(1, 'name at least one inbox, or send null for all of them')
  .max(1000)
  .nullable()
  .openapi({ description: 'only events of these inboxes; null or absent: all of your inboxes' });

const description = z.string().max(500).nullable();

const includeSpam = z.boolean().openapi({
  description: 'also email.received for mail filed into Spam (rspamd, DMARC); absent on create: false',
});

export const CreateWebhookBody = z
  .strictObject({
    url,
    events,
    accounts: accounts.optional(),
    includeSpam: includeSpam.optional(),
    description: description.optional(),
  })
  .openapi('CreateWebhook');

export const UpdateWebhookBody = z
  .strictObject({
    url: url.optional(),
    events: events.optional(),
    accounts: accounts.optional(),
    includeSpam: includeSpam.optional(),
    description: description.optional(),
    status: z.enum(['enabled', 'disabled']).optional(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), 'give at least one field to change')
  .openapi(
    'UpdateWebhook',
    atLeastOneOf(['url', 'events', 'accounts', 'includeSpam', 'description', 'status']),
  );

export const WebhookIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'wh_3kq9x1' }),
});

export const ListWebhooksQuery = z.object({ limit: limitQuery, cursor: z.string().optional() });

export const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    accounts: z.array(z.string()).nullable().openapi({ description: 'null: all of your inboxes' }),
    includeSpam: z.boolean().openapi({ description: 'also email.received for mail filed into Spam' }),
    description: z.string().nullable(),
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: z.enum(['user', 'gone', 'failing']).nullable().openapi({
      description: 'why it is disabled: by you, the endpoint answered 410, or 5 days of failures',
    }),
    failing_since: z.string().nullable().openapi({ description: 'first failure since the last success' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Webhook');

export const WebhookWithSecret = Webhook.extend({
  secret: z.string().openapi({
    description: 'whsec_ + base64 of 32 bytes: verifies the webhook-signature header; shown only here',
  }),
}).openapi('WebhookWithSecret');

export const DeliveryAttempt = z
  .object({
    id: z.number().int(),
    event_id: z.string().openapi({ description: 'also the webhook-id header of the request' }),
    type: z.string(),
    succeeded: z.boolean(),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    attempted_at: z.string(),
    delivery: z.object({
      id: z.number().int(),
      status: z.enum(['pending', 'succeeded', 'failed']),
      attempts: z.number().int(),
      next_attempt_at: z.string().nullable(),
    }),
  })
  .openapi('WebhookDeliveryAttempt');

export const TestEventResult = z.object({
  event: z.object({ id: z.string(), type: z.string(), created_at: z.string() }),
  delivery: z.object({ id: z.number().int(), status: z.literal('pending') }),
});

const seq = z.string().regex(/^\d{1,15}$/, 'must be the integer id of an event');

export const EventsQuery = z.object({
  account: z.string().min(1).optional().openapi({ description: 'one inbox; absent: all of yours' }),
  lastEventId: seq
    .optional()
    .openapi({ description: 'resume after this event (as the Last-Event-ID header)' }),
  token: z
    .string()
    .optional()
    .openapi({
      description:
        'a stream token from POST /events/token, instead of the Authorization header (a browser EventSource ' +
        'cannot send one); never the API key, which is refused here',
    }),
});

export const EventsHeaders = z.object({ 'last-event-id': seq.optional() });
