import crypto from 'node:crypto';
import type { Caller } from '../caller.js';
import { ownerCaller } from '../caller.js';
import type { MailboxDeps } from '../deps.js';
import { MailroomError, ValidationFailed } from '../errors.js';
import { nowIso, sha256Hex } from '../../store/ids.js';
import type { UserRow } from '../../store/users.js';
import { checkPassword, hashPassword, verifyPassword } from './passwords.js';
import { requireUser } from './admin.js';

/** A session ends this long after it was last used (sliding); signing out ends it at once. */
export const SESSION_IDLE_MS = 14 * 24 * 3600 * 1000;
/** A session's expiry is pushed forward at most this often, so reading pages costs no write each. */
const SESSION_TOUCH_MS = 3600 * 1000;
/** How long a one-time sign-in link can be used. */
export const SIGN_IN_LINK_MS = 15 * 60 * 1000;
/**
 * Sign-in attempts one client address, and one user name, may have in a window (those in flight
 * and those that failed) before the next must wait for the window's end.
 */
export const SIGN_IN_ATTEMPT_LIMIT = 4;
export const SIGN_IN_WINDOW_MS = 5 * 60 * 1000;

export interface Session {
  user: UserRow;
  /** The person acts for themselves: every permission, every inbox of theirs. */
  caller: Caller;
  /** sha256 of the cookie's token: what identifies the session without being it. */
  id: string;
  csrfToken: string;
}

/** Too many failed sign-ins from one address or for one name: the door answers 429 with the wait. */
export class SignInThrottled extends MailroomError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'rate_limited',
      `too many failed sign-ins from this address or for this name; try again in ${Math.ceil(retryAfterSeconds / 60)} minute(s)`,
    );
  }
}

const token = () => crypto.randomBytes(32).toString('base64url');
const at = (ms: number) => nowIso(new Date(ms));

/** Sets (or replaces) a user's password; the user's open dashboard sessions end. */
export async function setUserPassword(
  deps: MailboxDeps,
  userIdOrName: string | number,
  password: string,
): Promise<UserRow> {
  const user = await requireUser(deps, userIdOrName);
  const hash = await hashPassword(checkPassword(password));
  await deps.store.db.transaction(async () => {
    await deps.store.users.setPasswordHash(user.id, hash);
    await deps.store.dashboardSessions.removeSessionsOf(user.id);
  });
  return user;
}

async function openSession(deps: MailboxDeps, userId: number): Promise<{ token: string; session: Session }> {
  const secret = token();
  const now = Date.now();
  // Signing in is rare: a good moment to forget expired sessions, links and attempt windows.
  await deps.store.dashboardSessions.prune(at(now), at(now - SIGN_IN_WINDOW_MS));
  const csrfToken = token();
  await deps.store.dashboardSessions.createSession({
    token: secret,
    user_id: userId,
    csrf_token: csrfToken,
    created_at: at(now),
    last_seen_at: at(now),
    expires_at: at(now + SESSION_IDLE_MS),
  });
  return {
    token: secret,
    session: {
      user: await requireUser(deps, userId),
      caller: ownerCaller(userId),
      id: sha256Hex(secret),
      csrfToken,
    },
  };
}

/**
 * A sign-in by name and password from `client` (its address). Before any password is looked at,
 * the attempt takes a place in the current window of its client address and of its user name
 * (the name as typed, trimmed; known or not), or is refused with SignInThrottled when either
 * already holds SIGN_IN_ATTEMPT_LIMIT attempts: attempts in flight count, so however many arrive
 * together, at most that many passwords are checked. A wrong name or password keeps its place
 * (a failure) and gets the same answer after the same work; a right one gives its place back, and
 * nothing else: earlier failures still count until their window ends, so one valid account
 * cannot be used to keep guessing another's password.
 */
export async function signInWithPassword(
  deps: MailboxDeps,
  input: { name: string; password: string; client: string },
): Promise<{ token: string; session: Session }> {
  const store = deps.store.dashboardSessions;
  const name = input.name.trim();
  const now = Date.now();
  const { reserved, full } = await store.reserveAttempt(
    [`client:${input.client}`, `name:${sha256Hex(name)}`],
    { now: at(now), windowStart: at(now - SIGN_IN_WINDOW_MS), limit: SIGN_IN_ATTEMPT_LIMIT },
  );
  if (full.length > 0) {
    const ends = Math.max(...full.map((w) => Date.parse(w.window_start) + SIGN_IN_WINDOW_MS));
    // A window another attempt opened a few ms after this one read its clock ends at most one
    // window from now.
    throw new SignInThrottled(Math.max(1, Math.min(ends - now, SIGN_IN_WINDOW_MS) / 1000));
  }
  const found = await deps.store.users.passwordHashOf(name);
  const password = input.password.slice(0, 4096);
  const matches = await verifyPassword(password, found?.hash ?? null);
  if (!found || !matches) throw ValidationFailed.field('password', 'the name or the password is wrong');
  await store.releaseAttempt(reserved);
  return openSession(deps, found.user.id);
}

/** A one-time sign-in link's token for a user (NotFound for none), usable for SIGN_IN_LINK_MS. */
export async function createSignInLink(
  deps: MailboxDeps,
  userIdOrName: string | number,
): Promise<{ token: string; user: UserRow }> {
  const user = await requireUser(deps, userIdOrName);
  const secret = token();
  const now = Date.now();
  await deps.store.dashboardSessions.createLink(secret, user.id, at(now), at(now + SIGN_IN_LINK_MS));
  return { token: secret, user };
}

/** Uses up a sign-in link; an unknown, used or expired one is refused alike. */
export async function redeemSignInLink(
  deps: MailboxDeps,
  linkToken: string,
): Promise<{ token: string; session: Session }> {
  const userId = await deps.store.dashboardSessions.takeLink(linkToken, nowIso());
  if (userId === undefined) {
    throw new MailroomError(
      'unauthorized',
      'this sign-in link was already used or has expired; sign in with a password, or ask for a new link',
    );
  }
  return openSession(deps, userId);
}

/** The session of a cookie's token, or undefined; a session in use has its end pushed forward. */
export async function sessionOf(deps: MailboxDeps, cookieToken: string): Promise<Session | undefined> {
  const store = deps.store.dashboardSessions;
  const now = Date.now();
  const row = await store.session(cookieToken, at(now));
  if (!row) return undefined;
  const user = await deps.store.users.find(row.user_id);
  if (!user) return undefined;
  if (now - Date.parse(row.last_seen_at) > SESSION_TOUCH_MS) {
    await store.extend(row.token_hash, at(now), at(now + SESSION_IDLE_MS));
  }
  return { user, caller: ownerCaller(user.id), id: row.token_hash, csrfToken: row.csrf_token };
}

/** Whether a session (by id) is still open: read each time, so a sign-out elsewhere counts. */
export function sessionStillOpen(deps: MailboxDeps, sessionId: string): Promise<boolean> {
  return deps.store.dashboardSessions.isActive(sessionId, nowIso());
}

export async function signOut(deps: MailboxDeps, sessionId: string): Promise<void> {
  await deps.store.dashboardSessions.removeSession(sessionId);
}
