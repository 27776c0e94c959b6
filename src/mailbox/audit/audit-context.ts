import type { AuditAction, AuditActorKind, AuditDoor } from '../../contract/audit.js';
import { newId, nowIso } from '../../store/ids.js';
import type { MailboxDeps } from '../deps.js';
import { mailroomErrorOf } from '../errors.js';

/**
 * One request's audit record in the making (contract 15): the door opens it with who asks and
 * what; the verb that changes data writes it in its own transaction (recordInTransaction); the
 * door writes it after the answer when no verb did (a refusal, or a change no verb records).
 */
export interface AuditContext {
  readonly door: AuditDoor;
  readonly actor: { kind: AuditActorKind; id: string | null };
  /** Whose trail it is: the acting user, or the user an admin acted on (null: none). */
  userId: number | null;
  /** Declared by the route; a form that does one of several things may say which. */
  action: AuditAction;
  readonly requestId: string | null;
  /** The inbox, when the door or the verb knows it. */
  account: string | null;
  /** What the request acted on, when the door or the verb knows it. */
  target: string | null;
  /** Set once the record is written: the door then writes no second one. */
  written: boolean;
}

export function openAudit(fields: {
  door: AuditDoor;
  actor: AuditContext['actor'];
  userId: number | null;
  action: AuditAction;
  requestId: string | null;
  account?: string | null;
  target?: string | null;
}): AuditContext {
  return { account: null, target: null, ...fields, written: false };
}

async function append(deps: MailboxDeps, audit: AuditContext, outcome: string): Promise<void> {
  await deps.store.audit.append({
    id: newId('aud', 12),
    at: nowIso(),
    userId: audit.userId,
    actor: audit.actor,
    door: audit.door,
    action: audit.action,
    account: audit.account,
    target: audit.target,
    outcome,
    requestId: audit.requestId,
  });
}

/**
 * Inside the transaction of a change: its `ok` record, committed with it or not at all. A verb
 * called without an audit context (in-process, a test, a worker) records nothing.
 */
export async function recordInTransaction(
  deps: MailboxDeps,
  audit: AuditContext | undefined,
  fields: { account?: string | null; target?: string | null } = {},
): Promise<void> {
  if (!audit) return;
  if (fields.account !== undefined) audit.account = fields.account;
  if (fields.target !== undefined) audit.target = fields.target;
  await append(deps, audit, 'ok');
  audit.written = true;
}

/**
 * After the door's answer: the record, unless the verb wrote it. A refusal is always written:
 * the transaction that held an `ok` record for it rolled back (or, rarely, the request failed
 * after its change committed, and both are true). A failed write is logged, never the answer.
 */
export async function finishAudit(deps: MailboxDeps, audit: AuditContext, outcome: string): Promise<void> {
  if (audit.written && outcome === 'ok') return;
  try {
    await append(deps, audit, outcome);
    audit.written = true;
  } catch (err) {
    deps.log.error({ err, action: audit.action, requestId: audit.requestId }, 'audit record not written');
  }
}

/** The outcome of a thrown error: its contract code, or internal_error. */
export function outcomeOfError(error: unknown): string {
  return mailroomErrorOf(error)?.code ?? 'internal_error';
}
