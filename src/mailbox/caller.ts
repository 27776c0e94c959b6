import type { AuditContext } from './audit/audit-context.js';
import { Forbidden } from './errors.js';

/** What a key may do (contract 14); a person in the dashboard, the CLI and in-process calls may do all. */
export const PERMISSIONS = ['read', 'organise', 'send', 'manage', 'approve'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What a new key gets when its maker does not say: all but `approve` (contract 14). */
export const DEFAULT_KEY_PERMISSIONS: readonly Permission[] = ['read', 'organise', 'send', 'manage'];

/** Who acts, and how far they may go: the user, and the key's reach when a key acts. */
export interface Caller {
  userId: number;
  /** The API key acting, or null for a person (dashboard, CLI) or an in-process call. */
  keyId: string | null;
  /** The addresses the caller may reach, lower-case; null for all of the user's inboxes. */
  inboxes: readonly string[] | null;
  permissions: ReadonlySet<Permission>;
  /** The request's audit record, which a verb that changes data writes in its transaction. */
  audit?: AuditContext;
}

/** A caller that is an API key (HTTP, MCP, a stream token). */
export type KeyCaller = Caller & { keyId: string };

/** A user acting for themselves, with nothing held back (the dashboard's person, in-process calls). */
export function ownerCaller(userId: number): Caller {
  return { userId, keyId: null, inboxes: null, permissions: new Set(PERMISSIONS) };
}

/** A key's stored permissions that this server knows, in their usual order. */
export function permissionsOf(key: { permissions: readonly string[] }): Permission[] {
  return PERMISSIONS.filter((p) => key.permissions.includes(p));
}

/** 403 `forbidden` naming the permission the caller's key lacks. */
export function requirePermission(caller: Caller, permission: Permission): void {
  if (caller.permissions.has(permission)) return;
  throw new Forbidden(
    `this key lacks the ${permission} permission; its permissions are ${[...caller.permissions].join(', ') || 'none'}`,
  );
}
