import { createRoute } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import type { Context } from 'hono';
import type { EventFeed } from '../../mailbox/events/event-stream.js';
import { openEventFeed } from '../../mailbox/events/event-stream.js';
import type { MailboxDeps } from '../../mailbox/deps.js';
import { issueStreamToken } from '../../mailbox/events/stream-token.js';
import { Forbidden } from '../../mailbox/errors.js';
import type { AppEnv } from '../context.js';
import { needs } from '../route-permission.js';
import { audited } from '../route-audit.js';
import { ok } from '../envelope.js';
import { envelope } from '../../contract/common.js';
import {
  EVENT_SCHEMAS,
  EventStreamToken,
  MailroomEvent,
  StreamTokenBody,
  StreamTokenQuery,
} from '../../contract/events.js';
import { EventsHeaders, EventsQuery } from '../../contract/webhooks.js';
import { bearerSecurity, commonErrors, okResponse } from '../route-docs.js';

const stream = createRoute({
  method: 'get',
  path: '/events',
  operationId: 'streamEvents',
  tags: ['Events'],
  ...needs('read'),
  security: [...bearerSecurity, { streamToken: [] }],
  summary: 'Server-Sent Events: the webhook event objects of your inboxes, live',
  description:
    'Each message is `event: <type>`, `id: <sequence number>`, `data: <the event object as JSON>`. ' +
    'Reconnect with `Last-Event-ID` (or `?lastEventId=`) to receive exactly what was missed. ' +
    'The stream opens with a `: connected` comment; a `: ping` comment follows every quiet interval. ' +
    'Each `data` is one of the objects under `webhooks` in this document (MailroomEvent). ' +
    'A browser EventSource, which cannot send headers, authenticates with `?token=` from POST /events/token.',
  request: { query: EventsQuery, headers: EventsHeaders },
  responses: {
    200: {
      description: "The event stream: each message's data is a MailroomEvent as JSON",
      content: {
        'text/event-stream': {
          schema: {
            type: 'string',
            contentMediaType: 'application/json',
            contentSchema: { $ref: '#/components/schemas/MailroomEvent' },
          } as never,
        },
      },
    },
    ...commonErrors,
  },
});

const token = createRoute({
  method: 'post',
  path: '/events/token',
  operationId: 'createEventStreamToken',
  tags: ['Events'],
  ...needs('read'),
  ...audited('events.token'),
  summary: 'A short-lived token that opens GET /events?token=... (for a browser EventSource)',
  description:
    'Signed by the server, valid on any node sharing the database, for opening a stream within its minute. ' +
    'The stream then runs like one opened with the key, and ends when the key is revoked.',
  request: {
    query: StreamTokenQuery,
    body: { content: { 'application/json': { schema: StreamTokenBody } }, required: false },
  },
  responses: { ...okResponse(envelope(EventStreamToken), 'The token'), ...commonErrors },
});

/** Events as OpenAPI 3.1 webhooks: the body of each POST a webhook receives, and of each stream message. */
function describeEvents(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'streamToken', {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description: 'a stream token from POST /events/token (GET /events only)',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'webhookSignature', {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description:
      'Standard Webhooks: v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body"> keyed with the ' +
      "webhook's secret; what the receiver checks",
  });
  app.openAPIRegistry.register('MailroomEvent', MailroomEvent); // the stream's data, by $ref
  for (const [type, schema] of Object.entries(EVENT_SCHEMAS)) {
    app.openAPIRegistry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `${type.replace(/\.(\w)/, (_, c: string) => c.toUpperCase())}Event`,
      tags: ['Events'],
      security: [{ webhookSignature: [] }],
      summary: `The ${type} event, as a webhook receives it (signed per Standard Webhooks) and GET /events streams it`,
      request: { body: { content: { 'application/json': { schema } }, required: true } },
      responses: { 200: { description: 'Any 2xx within 15 s acknowledges it; anything else is retried' } },
    });
  }
}

export interface EventStreamOptions {
  /** A comment is sent after this long without an event, keeping proxies and clients aware. Default 15 s. */
  heartbeatMs?: number;
  /**
   * How often an open stream re-reads from the database whether its key is still active (and its
   * `account` still the user's), closing when not. Default 3 s.
   */
  accessCheckMs?: number;
}

/**
 * `GET /events`. Returns the route registration and `closeAll`, which the server calls on stop
 * so open streams end at once instead of holding the HTTP server's close.
 */
export type EventStreamRoutes = ReturnType<typeof createEventStreamRoutes>;

export function createEventStreamRoutes(options: EventStreamOptions = {}) {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const accessCheckMs = options.accessCheckMs ?? 3_000;
  const open = new Set<() => void>();

  /**
   * Sends a feed as Server-Sent Events until the client goes, the server stops, or the caller's
   * access ends (re-checked every accessCheckMs). The API's `GET /events` and the dashboard's
   * live list both stream through here.
   */
  function streamFeed(c: Context, feed: EventFeed, deps: MailboxDeps): Response {
    c.header('X-Accel-Buffering', 'no');
    const response = streamSSE(c, async (sse) => {
      let closed = false;
      const close = () => {
        closed = true;
        feed.close();
      };
      open.add(close);
      sse.onAbort(close);
      c.req.raw.signal.addEventListener('abort', close);
      const recheck = setInterval(() => void checkAccess(), accessCheckMs);
      try {
        await sse.write(': connected\n\n');
        await pump();
      } catch (err) {
        deps.log.warn({ err }, 'event stream ended on an error');
      } finally {
        clearInterval(recheck);
        open.delete(close);
        feed.close();
        c.req.raw.signal.removeEventListener('abort', close);
      }

      async function checkAccess() {
        try {
          if (closed || (await feed.stillAllowed())) return;
          deps.log.info({ keyId: c.var.caller.keyId }, 'event stream closed: its access was revoked');
        } catch (err) {
          deps.log.warn({ err }, 'event stream closed: its access could not be checked');
        }
        close();
      }

      async function pump() {
        while (!closed) {
          for (const row of await feed.take()) {
            if (closed) break;
            await sse.writeSSE({ event: row.type, id: String(row.seq), data: row.payload });
          }
          if (closed) break;
          const more = await feed.wait(heartbeatMs);
          if (!more && !closed) await sse.write(': ping\n\n');
        }
      }
    });
    // The connection ends with the stream, so a server stopping is not held up by it going idle.
    response.headers.set('Connection', 'close');
    return response;
  }

  function register(app: OpenAPIHono<AppEnv>) {
    describeEvents(app);
    app.openapi(token, async (c) => {
      return ok(c, await issueStreamToken(c.var.deps, c.var.caller, c.get('account')));
    });

    app.openapi(stream, async (c) => {
      const { lastEventId, ...query } = c.req.valid('query');
      const account = scopedAccount(query.account, c.var.streamTokenAccount);
      const resumeAfter = c.req.valid('header')['last-event-id'] ?? lastEventId;
      const feed = await openEventFeed(c.var.deps, c.var.caller, {
        ...(account !== undefined ? { account } : {}),
        ...(resumeAfter !== undefined ? { lastEventId: Number(resumeAfter) } : {}),
      });
      return streamFeed(c, feed, c.var.deps);
    });
  }

  return {
    register,
    streamFeed,
    closeAll(): void {
      for (const close of [...open]) close();
    },
  };
}

/** The stream's inbox: the query's, which a token limited to one inbox must agree with. */
function scopedAccount(asked: string | undefined, tokenAccount: string | null | undefined) {
  if (!tokenAccount) return asked;
  if (asked !== undefined && asked.trim().toLowerCase() !== tokenAccount.toLowerCase())
    throw new Forbidden(`this stream token is for ${tokenAccount}, not ${asked}`);
  return tokenAccount;
}
