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

export interface LabelView {
  id: string;
  name: string;
  color: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface LabelInput {
  name: string;
  color?: string;
  description?: string | null;
}

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

function requireUniqueName(deps: MailboxDeps, userId: number, name: string, exceptId?: string): void {
  const clash = deps.store.labels.findByName(userId, name);
  if (clash && clash.id !== exceptId)
    throw new Conflict(`a label named ${JSON.stringify(clash.name)} exists`);
}

export function requireLabel(deps: MailboxDeps, userId: number, idOrName: string): LabelRow {
  const label = deps.store.labels.resolve(userId, idOrName);
  if (!label) throw new NotFound(`no label ${JSON.stringify(idOrName)}`);
  return label;
}

export function createLabel(deps: MailboxDeps, userId: number, input: LabelInput): LabelView {
  const name = checkName(input.name);
  const color =
    input.color !== undefined
      ? checkColor(input.color)
      : LABEL_PALETTE[crypto.randomInt(LABEL_PALETTE.length)]!;
  return deps.store.db.transaction(() => {
    requireUniqueName(deps, userId, name);
    const now = nowIso();
    const row = deps.store.labels.create({
      id: crypto.randomUUID(),
      user_id: userId,
      name,
      color,
      description: checkDescription(input.description ?? null),
      created_at: now,
      updated_at: now,
    });
    return labelView(row);
  });
}

export function listLabels(
  deps: MailboxDeps,
  userId: number,
  limit: number,
  cursor?: string,
): { labels: LabelView[]; nextCursor: string | null } {
  const before = cursor !== undefined ? decodeCursor(cursor, 'label') : undefined;
  const rows = deps.store.labels.list(userId, before, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    labels: page.map(labelView),
    nextCursor: rows.length > limit && last ? encodeCursor('label', last.seq) : null,
  };
}

export function getLabel(deps: MailboxDeps, userId: number, idOrName: string): LabelView {
  return labelView(requireLabel(deps, userId, idOrName));
}

export function updateLabel(
  deps: MailboxDeps,
  userId: number,
  idOrName: string,
  input: Partial<LabelInput>,
): LabelView {
  const changes: LabelChanges = {};
  if (input.name !== undefined) changes.name = checkName(input.name);
  if (input.color !== undefined) changes.color = checkColor(input.color);
  if (input.description !== undefined) changes.description = checkDescription(input.description);
  return deps.store.db.transaction(() => {
    const label = requireLabel(deps, userId, idOrName);
    if (changes.name !== undefined) requireUniqueName(deps, userId, changes.name, label.id);
    deps.store.labels.update(userId, label.id, changes, nowIso());
    return labelView(deps.store.labels.get(userId, label.id)!);
  });
}

export function deleteLabel(deps: MailboxDeps, userId: number, idOrName: string): { id: string } {
  return deps.store.db.transaction(() => {
    const label = requireLabel(deps, userId, idOrName);
    deps.store.labels.remove(userId, label.id);
    return { id: label.id };
  });
}

/** Puts the user's labels (ids or names) on an email; labels it already has stay once. */
export function applyLabels(deps: MailboxDeps, userId: number, ref: EmailRef, labels: string[]): EmailView {
  const inbox = requireInbox(deps, userId, ref.account);
  return deps.store.db.transaction(() => {
    const { message, folder } = requireMessage(deps, inbox, ref.uid, ref.folder);
    const ids = labels.map((idOrName) => requireLabel(deps, userId, idOrName).id);
    deps.store.labels.apply(message.id, [...new Set(ids)]);
    return viewsOf(deps, inbox, [deps.store.messages.get(message.id)!], () => folder.name, 'full')[0]!;
  });
}

/** Takes a label off an email; taking off a label the email does not carry is not an error. */
export function removeLabel(deps: MailboxDeps, userId: number, ref: EmailRef, idOrName: string): EmailView {
  const inbox = requireInbox(deps, userId, ref.account);
  return deps.store.db.transaction(() => {
    const { message, folder } = requireMessage(deps, inbox, ref.uid, ref.folder);
    deps.store.labels.unapply(message.id, requireLabel(deps, userId, idOrName).id);
    return viewsOf(deps, inbox, [message], () => folder.name, 'full')[0]!;
  });
}
