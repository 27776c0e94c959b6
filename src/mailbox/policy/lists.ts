import type { z } from '@hono/zod-openapi';
import type { AddListEntryBody, ListEntry } from '../../contract/lists.js';
import type { ListDirection, ListType } from '../../db/schema.js';
import type { ListEntryRow, ListPlace } from '../../store/address-lists.js';
import { nowIso } from '../../store/ids.js';
import type { InboxRow } from '../../store/inboxes.js';
import { requireInbox } from '../access.js';
import type { Caller } from '../caller.js';
import { requirePermission } from '../caller.js';
import type { MailboxDeps } from '../deps.js';
import { Forbidden, NotFound, ValidationFailed } from '../errors.js';
import { normalizeEntry } from './entries.js';
import { recordInTransaction } from '../audit/audit-context.js';

export type ListEntryView = z.infer<typeof ListEntry>;
export type ListEntryInput = Omit<z.infer<typeof AddListEntryBody>, 'account'>;

/** Which list: a direction and a type, of one inbox (`account`) or of all the user's inboxes. */
export interface ListRef {
  direction: ListDirection;
  type: ListType;
  account?: string | undefined;
}

/** The entries of one list, newest first: the inbox's own, or the user-wide ones without `account`. */
export async function listEntries(deps: MailboxDeps, caller: Caller, ref: ListRef): Promise<ListEntryView[]> {
  requirePermission(caller, 'read');
  const { place, inbox } = await placeOf(deps, caller, ref);
  return (await deps.store.addressLists.list(place)).map((row) => viewOf(row, inbox));
}

/** Adds an entry (an entry already there keeps its date and takes the new reason, if one is given). */
export async function addEntry(
  deps: MailboxDeps,
  caller: Caller,
  ref: ListRef,
  input: ListEntryInput,
): Promise<ListEntryView> {
  requirePermission(caller, 'manage');
  const { place, inbox } = await placeOf(deps, caller, ref, true);
  const entry = entryOf(input.entry);
  const row = await deps.store.db.transaction(async () => {
    const put = await deps.store.addressLists.put(place, entry, input.reason ?? null, nowIso());
    await recordInTransaction(deps, caller.audit, auditFields(ref, inbox, entry));
    return put;
  });
  return viewOf(row, inbox);
}

export async function removeEntry(
  deps: MailboxDeps,
  caller: Caller,
  ref: ListRef,
  entry: string,
): Promise<{ entry: string; deleted: true }> {
  requirePermission(caller, 'manage');
  const { place, inbox } = await placeOf(deps, caller, ref, true);
  entry = entryOf(entry);
  const removed = entry;
  await deps.store.db.transaction(async () => {
    if (!(await deps.store.addressLists.remove(place, removed))) {
      const where = inbox ? inbox.address : 'your user-wide list';
      throw new NotFound(`${removed} is not on the ${ref.direction} ${ref.type} list of ${where}`);
    }
    await recordInTransaction(deps, caller.audit, auditFields(ref, inbox, removed));
  });
  return { entry, deleted: true };
}

/** A list change's record: the inbox (null for a user-wide list) and `direction/type/entry`. */
function auditFields(ref: ListRef, inbox: InboxRow | null, entry: string) {
  return { account: inbox?.address ?? null, target: `${ref.direction}/${ref.type}/${entry}` };
}

/** An entry as stored; the contract's schema has said the same already to an HTTP or MCP caller. */
function entryOf(raw: string): string {
  const normal = normalizeEntry(raw);
  if ('problem' in normal) throw ValidationFailed.field('entry', normal.problem);
  return normal.entry;
}

async function placeOf(
  deps: MailboxDeps,
  caller: Caller,
  ref: ListRef,
  changing = false,
): Promise<{ place: ListPlace; inbox: InboxRow | null }> {
  const inbox = ref.account === undefined ? null : await requireInbox(deps, caller, ref.account);
  // A user-wide entry holds for inboxes beyond a key that reaches only some of them.
  if (!inbox && changing && caller.inboxes !== null) {
    throw new Forbidden(
      'this key reaches only some of your inboxes, so it may not change the user-wide lists; give account',
    );
  }
  const place = {
    userId: caller.userId,
    inboxId: inbox?.id ?? null,
    direction: ref.direction,
    type: ref.type,
  };
  return { place, inbox };
}

function viewOf(row: ListEntryRow, inbox: InboxRow | null): ListEntryView {
  return {
    entry: row.entry,
    direction: row.direction,
    type: row.type,
    account: inbox?.address ?? null,
    reason: row.reason,
    created_at: row.created_at,
  };
}
