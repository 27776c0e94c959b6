import type { z } from '@hono/zod-openapi';
import type { Caller } from '../caller.js';
import type { CreateLabelBody, Label } from '../../contract/labels.js';
import crypto from 'node:crypto';
import { nowIso } from '../../store/ids.js';
import type { LabelChanges, LabelRow } from '../../store/labels.js';
import { requireInbox, requireMessage } from '../access.js';
import { decodeCursor, encodeCursor } from '../reading/cursor.js';
import type { MailboxDeps } from '../deps.js';
import type { EmailView } from '../reading/email-view.js';
import { Conflict, NotFound, ValidationFailed } from '../errors.js';
import type { EmailRef } from './organise.js';
import { viewsOf } from '../reading/read.js';
import { recordInTransaction } from '../audit/audit-context.js';

export const LABEL_NAME_MAX = 50;
export const LABEL_DESCRIPTION_MAX = 1000;
export const LABEL_COLOR = /^#[0-9a-fA-F]{6}$/;

/** Source 2.4: a label created without a colour gets one of these at random. */
export const LABEL_PALETTE = [
  '#6366f1',
  '#8b5cf6',
  '#a855f7',
  '#d946ef',
  '#ec4899',
  '#ef4444',
  '#f97316',
  '#f59e0b',
  '#22c55e',
  '#0ea5e9',
] as const;

export type LabelView = z.infer<typeof Label>;

export type LabelInput = z.infer<typeof CreateLabelBody>;

export function labelView(row: LabelRow): LabelView {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Why a label name is unusable, or null when it is fine. The name is taken trimmed; its length
 * counts Unicode characters (an emoji is one).
 */
export function labelNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === '') return `name is required: 1 to ${LABEL_NAME_MAX} characters`;
  if ([...trimmed].length > LABEL_NAME_MAX) return `name must be 1 to ${LABEL_NAME_MAX} characters`;
  if (/\p{Cc}/u.test(trimmed)) return 'name must not contain control characters';
  return null;
}

function checkName(name: string): string {
  const problem = labelNameProblem(name);
  if (problem) throw ValidationFailed.field('name', problem);
  return name.trim();
}

/** Colours are stored lower-case, the form the palette uses. */
function checkColor(color: string): string {
  if (!LABEL_COLOR.test(color))
    throw ValidationFailed.field('color', 'color must be #RRGGBB (six hex digits)');
  return color.toLowerCase();
}

function checkDescription(description: string | null): string | null {
  if (description !== null && [...description].length > LABEL_DESCRIPTION_MAX)
    throw ValidationFailed.field(
      'description',
      `description must be at most ${LABEL_DESCRIPTION_MAX} characters`,
    );
  return description;
}

async function requireUniqueName(
  deps: MailboxDeps,
  caller: Caller,
  name: string,
  exceptId?: string,
): Promise<void> {
  const clash = await deps.store.labels.findByName(caller.userId, name);
  if (clash && clash.id !== exceptId)
    throw new Conflict(`a label named ${JSON.stringify(clash.name)} exists`);
}

export async function requireLabel(deps: MailboxDeps, caller: Caller, idOrName: string): Promise<LabelRow> {
  const label = await deps.store.labels.resolve(caller.userId, idOrName);
  if (!label) throw new NotFound(`no label ${JSON.stringify(idOrName)}`);
  return label;
}

export async function createLabel(deps: MailboxDeps, caller: Caller, input: LabelInput): Promise<LabelView> {
  const name = checkName(input.name);
  const color =
    input.color !== undefined
      ? checkColor(input.color)
      : LABEL_PALETTE[crypto.randomInt(LABEL_PALETTE.length)]!;
  return deps.store.db.transaction(async () => {
    await requireUniqueName(deps, caller, name);
    const now = nowIso();
    const row = await deps.store.labels.create({
      id: crypto.randomUUID(),
      user_id: caller.userId,
      name,
      color,
      description: checkDescription(input.description ?? null),
      created_at: now,
      updated_at: now,
    });
    await recordInTransaction(deps, caller.audit, { account: null, target: row.id });
    return labelView(row);
  });
}

export async function listLabels(
  deps: MailboxDeps,
  caller: Caller,
  limit: number,
  cursor?: string,
): Promise<{ labels: LabelView[]; nextCursor: string | null }> {
  const before = cursor !== undefined ? decodeCursor(cursor, 'label') : undefined;
  const rows = await deps.store.labels.list(caller.userId, before, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    labels: page.map(labelView),
    nextCursor: rows.length > limit && last ? encodeCursor('label', last.seq) : null,
  };
}

export async function getLabel(deps: MailboxDeps, caller: Caller, idOrName: string): Promise<LabelView> {
  return labelView(await requireLabel(deps, caller, idOrName));
}

export async function updateLabel(
  deps: MailboxDeps,
  caller: Caller,
  idOrName: string,
  input: Partial<LabelInput>,
): Promise<LabelView> {
  const changes: LabelChanges = {};
  if (input.name !== undefined) changes.name = checkName(input.name);
  if (input.color !== undefined) changes.color = checkColor(input.color);
  if (input.description !== undefined) changes.description = checkDescription(input.description);
  return deps.store.db.transaction(async () => {
    const label = await requireLabel(deps, caller, idOrName);
    if (changes.name !== undefined) await requireUniqueName(deps, caller, changes.name, label.id);
    await deps.store.labels.update(caller.userId, label.id, changes, nowIso());
    await recordInTransaction(deps, caller.audit, { account: null, target: label.id });
    return labelView((await deps.store.labels.get(caller.userId, label.id))!);
  });
}

export async function deleteLabel(
  deps: MailboxDeps,
  caller: Caller,
  idOrName: string,
): Promise<{ id: string }> {
  return deps.store.db.transaction(async () => {
    const label = await requireLabel(deps, caller, idOrName);
    await deps.store.labels.remove(caller.userId, label.id);
    await recordInTransaction(deps, caller.audit, { account: null, target: label.id });
    return { id: label.id };
  });
}

/** Puts the user's labels (ids or names) on an email; labels it already has stay once. */
export async function applyLabels(
  deps: MailboxDeps,
  caller: Caller,
  ref: EmailRef,
  labels: string[],
): Promise<EmailView> {
  const inbox = await requireInbox(deps, caller, ref.account);
  return deps.store.db.transaction(async () => {
    const { message, folder } = await requireMessage(deps, inbox, ref.uid, ref.folder);
    const ids: string[] = [];
    for (const idOrName of labels) ids.push((await requireLabel(deps, caller, idOrName)).id);
    await deps.store.labels.apply(message.id, [...new Set(ids)]);
    await recordInTransaction(deps, caller.audit, { account: inbox.address, target: String(message.uid) });
    const labelled = (await deps.store.messages.get(message.id))!;
    return (await viewsOf(deps, inbox, [labelled], () => folder.name, 'full'))[0]!;
  });
}

/** Takes a label off an email; taking off a label the email does not carry is not an error. */
export async function removeLabel(
  deps: MailboxDeps,
  caller: Caller,
  ref: EmailRef,
  idOrName: string,
): Promise<EmailView> {
  const inbox = await requireInbox(deps, caller, ref.account);
  return deps.store.db.transaction(async () => {
    const { message, folder } = await requireMessage(deps, inbox, ref.uid, ref.folder);
    const label = await requireLabel(deps, caller, idOrName);
    await deps.store.labels.unapply(message.id, label.id);
    await recordInTransaction(deps, caller.audit, {
      account: inbox.address,
      target: `${message.uid}/${label.id}`,
    });
    return (await viewsOf(deps, inbox, [message], () => folder.name, 'full'))[0]!;
  });
}
