import type { z } from '@hono/zod-openapi';
import type { Caller } from '../caller.js';
import type {
  CreateWebhookBody,
  UpdateWebhookBody,
  Webhook,
  WebhookWithSecret,
} from '../../contract/webhooks.js';
import { TEST_EVENT_TYPE } from '../../events/dispatcher.js';
import { generateWebhookSecret } from '../../events/signing.js';
import { checkWebhookUrl, webhookReach } from '../../events/url-guard.js';
import type { WebhookPatch, WebhookRow } from '../../store/webhooks.js';
import { reachableInboxes, requireInbox } from '../access.js';
import { decodeCursor, encodeCursor } from '../reading/cursor.js';
import type { MailboxDeps } from '../deps.js';
import { NotFound, ValidationFailed } from '../errors.js';
import { recordInTransaction } from '../audit/audit-context.js';

/** The event kinds a webhook can subscribe to (contract 7). */
export const EVENT_KINDS = [
  'email.received',
  'email.sent',
  'email.bounced',
  'inbox.loop_detected',
  'email.pending_approval',
  'email.approved',
  'email.rejected',
  'email.scheduled',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export type WebhookView = z.infer<typeof Webhook>;

/** A webhook with its secret: shown only right after create and rotate-secret. */
export type WebhookWithSecretView = z.infer<typeof WebhookWithSecret>;

export type WebhookInput = z.infer<typeof CreateWebhookBody>;

export type WebhookChanges = z.infer<typeof UpdateWebhookBody>;

export async function createWebhook(
  deps: MailboxDeps,
  caller: Caller,
  input: WebhookInput,
): Promise<WebhookWithSecretView> {
  const url = await requireDeliverableUrl(deps, input.url);
  const secret = generateWebhookSecret();
  const accounts = await inboxIdsOf(deps, caller, input.accounts ?? null);
  const row = await deps.store.db.transaction(async () => {
    const created = await deps.store.webhooks.create({
      userId: caller.userId,
      url,
      events: uniqueKinds(input.events),
      accounts,
      includeSpam: input.includeSpam ?? false,
      description: input.description ?? null,
      secret,
    });
    await recordInTransaction(deps, caller.audit, { target: created.id });
    return created;
  });
  return { ...(await viewOf(deps, row)), secret };
}

export async function listWebhooks(
  deps: MailboxDeps,
  caller: Caller,
  limit: number,
  cursor?: string,
): Promise<{ webhooks: WebhookView[]; nextCursor: string | null }> {
  let before = cursor !== undefined ? decodeCursor(cursor, 'webhook') : undefined;
  const reach = await reachOf(deps, caller);
  // A key limited to some inboxes sees only the webhooks within them, so rows outside its reach
  // are skipped and more read until the page is full or the user's webhooks run out.
  const kept: (WebhookRow & { position: number })[] = [];
  for (;;) {
    const rows = await deps.store.webhooks.list(caller.userId, limit + 1, before);
    kept.push(...rows.filter((row) => inReach(row, reach)));
    const last = rows[rows.length - 1];
    if (kept.length > limit || rows.length <= limit || !last) break;
    before = last.position;
  }
  const page = kept.slice(0, limit);
  const last = page[page.length - 1];
  const webhooks: WebhookView[] = [];
  for (const row of page) webhooks.push(await viewOf(deps, row));
  return {
    webhooks,
    nextCursor: kept.length > limit && last ? encodeCursor('webhook', last.position) : null,
  };
}

export async function getWebhook(deps: MailboxDeps, caller: Caller, id: string): Promise<WebhookView> {
  return viewOf(deps, await requireWebhook(deps, caller, id));
}

export async function updateWebhook(
  deps: MailboxDeps,
  caller: Caller,
  id: string,
  changes: WebhookChanges,
): Promise<WebhookView> {
  await requireWebhook(deps, caller, id);
  const patch: WebhookPatch = {};
  if (changes.url !== undefined) patch.url = await requireDeliverableUrl(deps, changes.url);
  if (changes.events !== undefined) patch.events = uniqueKinds(changes.events);
  if (changes.accounts !== undefined) patch.accounts = await inboxIdsOf(deps, caller, changes.accounts);
  if (changes.includeSpam !== undefined) patch.includeSpam = changes.includeSpam;
  if (changes.description !== undefined) patch.description = changes.description;
  if (changes.status !== undefined) patch.status = changes.status;
  const row = await changed(deps, caller, id, () => deps.store.webhooks.update(caller.userId, id, patch));
  return viewOf(deps, row);
}

export async function deleteWebhook(deps: MailboxDeps, caller: Caller, id: string): Promise<void> {
  await requireWebhook(deps, caller, id);
  await changed(deps, caller, id, async () =>
    (await deps.store.webhooks.remove(caller.userId, id)) ? id : null,
  );
}

/** A new secret at once; deliveries from now on (retries included) are signed with it alone. */
export async function rotateWebhookSecret(
  deps: MailboxDeps,
  caller: Caller,
  id: string,
): Promise<WebhookWithSecretView> {
  await requireWebhook(deps, caller, id);
  const secret = generateWebhookSecret();
  const row = await changed(deps, caller, id, () => deps.store.webhooks.setSecret(caller.userId, id, secret));
  return { ...(await viewOf(deps, row)), secret };
}

/** A change to webhook `id` and its record, in one transaction; nothing from `change`: it is gone (404). */
async function changed<T>(
  deps: MailboxDeps,
  caller: Caller,
  id: string,
  change: () => Promise<T | null | undefined>,
): Promise<T> {
  return deps.store.db.transaction(async () => {
    const result = await change();
    if (result === null || result === undefined) throw notFound(id);
    await recordInTransaction(deps, caller.audit, { target: id });
    return result;
  });
}

/**
 * Queues a `webhook.test` event for this webhook alone, whatever its status; the dispatcher
 * makes one attempt, visible in the webhook's deliveries.
 */
export async function sendTestEvent(deps: MailboxDeps, caller: Caller, id: string) {
  const hook = await requireWebhook(deps, caller, id);
  const event = await deps.store.groupCommit.submit(() =>
    deps.store.events.append({
      type: TEST_EVENT_TYPE,
      userId: caller.userId,
      inboxId: null,
      data: { webhook: { id: hook.id, url: hook.url }, message: 'A test event from Mailroom.' },
      webhookId: hook.id,
    }),
  );
  const deliveryId = event.deliveryId!;
  deps.bus.publish([event]);
  return {
    event: { id: event.id, type: event.type, created_at: event.created_at },
    delivery: { id: deliveryId, status: 'pending' as const },
  };
}

/** The caller's webhook, or NotFound (the same answer whether it is someone else's or does not exist). */
export async function requireWebhook(deps: MailboxDeps, caller: Caller, id: string): Promise<WebhookRow> {
  const row = await deps.store.webhooks.get(caller.userId, id);
  if (!row || !inReach(row, await reachOf(deps, caller))) throw notFound(id);
  return row;
}

/** The ids of the inboxes a limited key reaches; null for a caller that reaches all of its user's. */
async function reachOf(deps: MailboxDeps, caller: Caller): Promise<Set<number> | null> {
  if (caller.inboxes === null) return null;
  return new Set((await reachableInboxes(deps, caller)).map((inbox) => inbox.id));
}

/** A webhook is within a limited key's reach when every inbox it hears from is (one for all inboxes is not). */
function inReach(row: WebhookRow, reach: Set<number> | null): boolean {
  if (reach === null) return true;
  if (row.accounts === null) return false;
  return (JSON.parse(row.accounts) as number[]).every((id) => reach.has(id));
}

const notFound = (id: string) => new NotFound(`no webhook ${JSON.stringify(id)}`);

async function requireDeliverableUrl(deps: MailboxDeps, url: string): Promise<string> {
  const check = await checkWebhookUrl(url.trim(), { reach: webhookReach(deps.config) });
  if (!check.ok) {
    if (check.address !== undefined)
      deps.log.warn({ url: url.trim(), address: check.address }, 'webhook URL refused: non-public address');
    throw ValidationFailed.field('url', check.reason);
  }
  return check.url.href;
}

const uniqueKinds = (kinds: EventKind[]): string[] => EVENT_KINDS.filter((k) => kinds.includes(k));

/**
 * Addresses to inbox ids; each must be one of the caller's inboxes (403 otherwise, as for
 * `account`). For all inboxes (null), a key limited to some gets those it reaches.
 */
async function inboxIdsOf(
  deps: MailboxDeps,
  caller: Caller,
  accounts: string[] | null,
): Promise<number[] | null> {
  if (accounts === null) {
    const reach = await reachOf(deps, caller);
    return reach === null ? null : [...reach];
  }
  const ids: number[] = [];
  for (const address of accounts) ids.push((await requireInbox(deps, caller, address)).id);
  return [...new Set(ids)];
}

async function viewOf(deps: MailboxDeps, row: WebhookRow): Promise<WebhookView> {
  const ids = row.accounts === null ? null : (JSON.parse(row.accounts) as number[]);
  let accounts: string[] | null = null;
  if (ids !== null) {
    // An inbox removed since is left out.
    accounts = [];
    for (const inboxId of ids) {
      const inbox = await deps.store.inboxes.get(inboxId);
      if (inbox) accounts.push(inbox.address);
    }
  }
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    accounts,
    includeSpam: row.include_spam === 1,
    description: row.description,
    status: row.status,
    // The store writes only the contract's reasons.
    disabled_reason:
      row.status === 'disabled' ? (row.disabled_reason as WebhookView['disabled_reason']) : null,
    failing_since: row.failing_since,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
