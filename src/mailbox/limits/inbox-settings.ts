import type { InboxSettingsChanges, InboxSettingsView } from '../../contract/settings.js';
import type { InboxRow, InboxSettingsPatch } from '../../store/inboxes.js';
import { requireInbox } from '../access.js';
import type { Caller } from '../caller.js';
import { requirePermission } from '../caller.js';
import type { MailboxDeps } from '../deps.js';
import { recordInTransaction } from '../audit/audit-context.js';

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

/** An inbox's send limits in recipients, its own or the server's (0: none). */
export function limitsOf(deps: MailboxDeps, inbox: InboxRow): { perHour: number; perDay: number } {
  return {
    perHour: inbox.send_limit_per_hour ?? deps.config.sendLimitPerHour,
    perDay: inbox.send_limit_per_day ?? deps.config.sendLimitPerDay,
  };
}

/** `GET /accounts/{address}/settings`: the inbox's settings and what it sent lately (needs `read`). */
export async function getInboxSettings(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
): Promise<InboxSettingsView> {
  requirePermission(caller, 'read');
  return settingsOf(deps, await requireInbox(deps, caller, account));
}

/** `PATCH /accounts/{address}/settings` (needs `manage`). */
export async function updateInboxSettings(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  changes: InboxSettingsChanges,
): Promise<InboxSettingsView> {
  requirePermission(caller, 'manage');
  const inbox = await requireInbox(deps, caller, account);
  const patch: InboxSettingsPatch = {};
  if (changes.mode !== undefined) patch.send_mode = changes.mode;
  if (changes.paused !== undefined) patch.paused = changes.paused ? 1 : 0;
  if (changes.limits?.perHour !== undefined) patch.send_limit_per_hour = changes.limits.perHour;
  if (changes.limits?.perDay !== undefined) patch.send_limit_per_day = changes.limits.perDay;
  await deps.store.db.transaction(async () => {
    await deps.store.inboxes.updateSettings(inbox.id, patch);
    await recordInTransaction(deps, caller.audit, { account: inbox.address, target: inbox.address });
  });
  return settingsOf(deps, { ...inbox, ...patch });
}

async function settingsOf(deps: MailboxDeps, inbox: InboxRow): Promise<InboxSettingsView> {
  const now = Date.now();
  const sent = await deps.store.sendLog.counts(inbox.id, new Date(now - HOUR_MS), new Date(now - DAY_MS));
  return { mode: inbox.send_mode, paused: inbox.paused === 1, limits: limitsOf(deps, inbox), sent };
}
