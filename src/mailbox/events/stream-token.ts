import type { z } from '@hono/zod-openapi';
import type { EventStreamToken } from '../../contract/events.js';
import crypto from 'node:crypto';
import { requireInbox } from '../access.js';
import type { KeyCaller } from '../caller.js';
import { callerOfKey } from '../operations/key-auth.js';
import type { MailboxDeps } from '../deps.js';

/** How long a stream token may be used to open a stream; the stream itself lasts as long as it is open. */
export const STREAM_TOKEN_SECONDS = 60;

/** Tells a stream token from an API key (`mr_live_`) at a glance, and versions its format. */
const PREFIX = 'mrst1';

/** What a token says, signed: whose key, which inbox (null: all of them) and until when (Unix seconds). */
export interface StreamTokenClaims {
  keyId: string;
  userId: number;
  account: string | null;
  expires: number;
}

export type StreamToken = z.infer<typeof EventStreamToken>;

/**
 * The HMAC key of stream tokens, derived from MAILROOM_SECRET (or secret.key) for this use alone.
 * Every node sharing the database shares the secret, so a token made on one opens a stream on any.
 */
function tokenKey(deps: MailboxDeps): Buffer {
  const secret = deps.config.secret;
  if (!secret) throw new Error('stream tokens need the server secret: open the data directory first');
  return Buffer.from(crypto.hkdfSync('sha256', secret, 'mailroom', 'event-stream-token', 32));
}

const mac = (key: Buffer, body: string) =>
  crypto.createHmac('sha256', key).update(`${PREFIX}.${body}`).digest('base64url');

export function signStreamToken(deps: MailboxDeps, claims: StreamTokenClaims): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${PREFIX}.${body}.${mac(tokenKey(deps), body)}`;
}

/** The claims of a token this server's secret signed and that has not expired; null otherwise. */
export function verifyStreamToken(
  deps: MailboxDeps,
  token: string,
  now = Date.now(),
): StreamTokenClaims | null {
  const [prefix, body, signature, ...rest] = token.split('.');
  if (prefix !== PREFIX || !body || !signature || rest.length > 0) return null;
  const expected = Buffer.from(mac(tokenKey(deps), body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  let claims: StreamTokenClaims;
  try {
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StreamTokenClaims;
  } catch {
    return null;
  }
  if (typeof claims.keyId !== 'string' || typeof claims.userId !== 'number') return null;
  if (typeof claims.expires !== 'number' || claims.expires * 1000 <= now) return null;
  return claims;
}

/**
 * `POST /events/token`: a short-lived token that opens `GET /events?token=` for the caller's key,
 * for clients that cannot send the Authorization header (a browser's EventSource). Limited to
 * one inbox when `account` is given (it must be the caller's: 403).
 */
export async function issueStreamToken(
  deps: MailboxDeps,
  caller: KeyCaller,
  account?: string,
): Promise<StreamToken> {
  const inbox = account !== undefined ? await requireInbox(deps, caller, account) : null;
  const expires = Math.floor(Date.now() / 1000) + STREAM_TOKEN_SECONDS;
  const claims = { keyId: caller.keyId, userId: caller.userId, account: inbox?.address ?? null, expires };
  return {
    token: signStreamToken(deps, claims),
    expiresAt: new Date(expires * 1000).toISOString(),
    account: claims.account,
  };
}

/**
 * The caller a stream token stands for (its key, as it is now) and the inbox it is for (null: all
 * the key reaches): null when it is forged, expired, or its key has been revoked since (read from
 * the database, so a revocation on another node counts).
 */
export async function redeemStreamToken(
  deps: MailboxDeps,
  token: string,
): Promise<{ caller: KeyCaller; account: string | null } | null> {
  const claims = verifyStreamToken(deps, token);
  const key = claims ? await deps.store.apiKeys.active(claims.keyId) : undefined;
  if (!claims || !key) return null;
  return { caller: callerOfKey(key), account: claims.account };
}
