import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import type { Context } from 'hono';
import type { EventFeed } from '../../mailbox/events/event-stream.js';
import { openEventFeed } from '../../mailbox/events/event-stream.js';
import type { MailboxDeps } from '../../mailbox/deps.js';
import type { AppEnv } from '../context.js';
import { bearerSecurity, commonErrors } from '../schemas/common.js';
import { EventsHeaders, EventsQuery } from '../schemas/webhooks.js';

const stream = createRoute({
  method: 'get',
  path: '/events',
  operationId: 'streamEvents',
  tags: ['Events'],
  security: bearerSecurity,
  summary: 'Server-Sent Events: the webhook event objects of your inboxes, live',
  description:
    'Each message is `event: <type>`, `id: <sequence number>`, `data: <the event object as JSON>`. ' +
    'Reconnect with `Last-Event-ID` (or `?lastEventId=`) to receive exactly what was missed. ' +
    'The stream opens with a `: connected` comment; a `: ping` comment follows every quiet interval.',
  request: { query: EventsQuery, headers: EventsHeaders },
  responses: {
    200: { description: 'The event stream', content: { 'text/event-stream': { schema: z.string() } } },
    ...commonErrors,
  },
});

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
          deps.log.info({ keyId: c.get('keyId') as unknown }, 'event stream closed: its access was revoked');
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
    app.openapi(stream, async (c) => {
      const { account, lastEventId } = c.req.valid('query');
      const resumeAfter = c.req.valid('header')['last-event-id'] ?? lastEventId;
      const feed = await openEventFeed(c.var.deps, c.var, {
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
