import type { z } from '@hono/zod-openapi';
import type { Caller } from '../caller.js';
import type { DeliveryAttempt } from '../../contract/webhooks.js';
import { withExtractedReply } from '../../events/payload.js';
import type { AttemptListRow } from '../../store/webhook-deliveries.js';
import { decodeCursor, encodeCursor } from '../reading/cursor.js';
import type { MailboxDeps } from '../deps.js';
import { NotFound } from '../errors.js';
import { requireWebhook } from './webhooks.js';

export type AttemptView = z.infer<typeof DeliveryAttempt>;

/** A webhook's delivery attempts, newest first. */
export async function listDeliveries(
  deps: MailboxDeps,
  caller: Caller,
  id: string,
  limit: number,
  cursor?: string,
): Promise<{ deliveries: AttemptView[]; nextCursor: string | null }> {
  const hook = await requireWebhook(deps, caller, id);
  const before = cursor !== undefined ? decodeCursor(cursor, 'attempt') : undefined;
  const rows = await deps.store.webhookDeliveries.attempts(hook.id, limit + 1, before);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    deliveries: page.map(attemptView),
    nextCursor: rows.length > limit && last ? encodeCursor('attempt', last.id) : null,
  };
}

function attemptView(row: AttemptListRow): AttemptView {
  return {
    id: row.id,
    event_id: row.event_id,
    type: row.event_type,
    succeeded:
      row.error === null && row.status_code !== null && row.status_code >= 200 && row.status_code < 300,
    status_code: row.status_code,
    error: row.error,
    duration_ms: row.duration_ms,
    attempted_at: row.attempted_at,
    delivery: {
      id: row.delivery_id,
      status: row.delivery_status,
      attempts: row.delivery_attempts,
      next_attempt_at: row.delivery_status === 'pending' ? row.next_attempt_at : null,
    },
  };
}

/** One attempt as the person who owns the webhook reads it: what went out and what came back. */
export interface AttemptDetail extends AttemptView {
  /** Null `url` and `headers` on attempts recorded before they were kept (migration 015). */
  request: { url: string | null; headers: Record<string, string> | null; body: string };
  /** The start of the answer's body (RESPONSE_EXCERPT_BYTES) and its whole size; null without an answer. */
  response: { body: string | null; bytes: number | null };
}

export async function readAttempt(
  deps: MailboxDeps,
  caller: Caller,
  webhookId: string,
  attemptId: number,
): Promise<AttemptDetail> {
  const hook = await requireWebhook(deps, caller, webhookId);
  const row = Number.isSafeInteger(attemptId)
    ? await deps.store.webhookDeliveries.attempt(hook.id, attemptId)
    : undefined;
  if (!row) throw new NotFound(`no such attempt of webhook ${JSON.stringify(webhookId)}`);
  return {
    ...attemptView(row),
    request: {
      url: row.request_url,
      headers:
        row.request_headers === null ? null : (JSON.parse(row.request_headers) as Record<string, string>),
      // The body as the dispatcher builds it from the event; the event is kept, so it is not stored twice.
      body: withExtractedReply(row.payload),
    },
    response: { body: row.response_body, bytes: row.response_bytes },
  };
}

export interface WaitingDelivery {
  id: number;
  event_id: string;
  type: string;
  created_at: string;
}

/** How many of a webhook's newest deliveries are looked at for ones not attempted yet. */
const WAITING_LOOK_BACK = 20;

/** The webhook's deliveries queued and not attempted yet (a test event just sent), newest first. */
export async function waitingDeliveries(
  deps: MailboxDeps,
  caller: Caller,
  webhookId: string,
): Promise<WaitingDelivery[]> {
  const hook = await requireWebhook(deps, caller, webhookId);
  const rows = await deps.store.webhookDeliveries.waiting(hook.id, WAITING_LOOK_BACK);
  return rows.map((r) => ({ id: r.id, event_id: r.event_id, type: r.event_type, created_at: r.created_at }));
}
