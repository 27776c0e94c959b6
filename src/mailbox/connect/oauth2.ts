import crypto from 'node:crypto';
import { decodeJwt } from 'jose';
import type { OAuthEndpoints } from './providers.js';

/** The team's OAuth client at one provider (settings MAILROOM_OAUTH_<PROVIDER>_CLIENT_ID/_SECRET). */
export interface OAuthClient {
  clientId: string;
  clientSecret?: string;
}

export interface TokenAnswer {
  accessToken: string;
  /** When the access token stops working (ms since the epoch). */
  expiresAt: number;
  /** A new refresh token, when the provider rotates them (Microsoft does): it replaces the stored one. */
  refreshToken?: string;
  /** The OpenID Connect ID token, when the scopes asked for one (`openid`). */
  idToken?: string;
}

/**
 * The provider refused the grant itself (`invalid_grant`): a refresh token revoked, expired, or
 * issued to another client, or an authorization code already used or expired. Nothing but a new
 * authorization fixes it.
 */
export class RefreshTokenRefused extends Error {}

/** The token endpoint could not be reached or answered something else than a token or a refusal. */
export class TokenEndpointFailed extends Error {}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Assumed when a token answer has no expires_in (RFC 6749 5.1 makes it optional). */
const DEFAULT_LIFETIME_S = 3600;

async function tokenRequest(
  endpoints: Pick<OAuthEndpoints, 'tokenUrl'>,
  client: OAuthClient,
  params: Record<string, string>,
  fetchFn: FetchLike,
): Promise<TokenAnswer> {
  const body = new URLSearchParams({ ...params, client_id: client.clientId });
  if (client.clientSecret) body.set('client_secret', client.clientSecret);
  const host = new URL(endpoints.tokenUrl).host;
  let res: Response;
  try {
    res = await fetchFn(endpoints.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      signal: AbortSignal.timeout(20_000),
    });
  } catch (error) {
    throw new TokenEndpointFailed(
      `cannot reach the OAuth2 token endpoint ${host}: ${(error as Error).message}`,
    );
  }
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // answered below
  }
  if (res.ok && typeof json.access_token === 'string') {
    const lifetime = Number(json.expires_in) > 0 ? Number(json.expires_in) : DEFAULT_LIFETIME_S;
    return {
      accessToken: json.access_token,
      expiresAt: Date.now() + lifetime * 1000,
      ...(typeof json.refresh_token === 'string' ? { refreshToken: json.refresh_token } : {}),
      ...(typeof json.id_token === 'string' ? { idToken: json.id_token } : {}),
    };
  }
  const code = typeof json.error === 'string' ? json.error : `HTTP ${res.status}`;
  const said = typeof json.error_description === 'string' ? `: ${json.error_description}` : '';
  if (code === 'invalid_grant') {
    const what = params.grant_type === 'authorization_code' ? 'authorization code' : 'refresh token';
    throw new RefreshTokenRefused(`${host} refused the ${what} (${code}${said})`);
  }
  throw new TokenEndpointFailed(`the OAuth2 token endpoint ${host} answered ${code}${said}`);
}

/** A fresh access token for a refresh token (RFC 6749 section 6). */
export function refreshAccessToken(
  endpoints: Pick<OAuthEndpoints, 'tokenUrl'>,
  client: OAuthClient,
  refreshToken: string,
  fetchFn: FetchLike = fetch,
): Promise<TokenAnswer> {
  return tokenRequest(
    endpoints,
    client,
    { grant_type: 'refresh_token', refresh_token: refreshToken },
    fetchFn,
  );
}

/**
 * The authorization-code exchange with PKCE (RFC 6749 4.1.3, RFC 7636): what a dashboard's
 * "Connect" callback calls with the code it was given and the verifier it kept.
 */
export function exchangeAuthorizationCode(
  endpoints: Pick<OAuthEndpoints, 'tokenUrl'>,
  client: OAuthClient,
  input: { code: string; codeVerifier: string; redirectUri: string },
  fetchFn: FetchLike = fetch,
): Promise<TokenAnswer> {
  return tokenRequest(
    endpoints,
    client,
    {
      grant_type: 'authorization_code',
      code: input.code,
      code_verifier: input.codeVerifier,
      redirect_uri: input.redirectUri,
    },
    fetchFn,
  );
}

/** A PKCE verifier (43 characters of base64url, RFC 7636 4.1), its S256 challenge, and a state value. */
export function newAuthorizationAttempt(): { codeVerifier: string; codeChallenge: string; state: string } {
  const codeVerifier = crypto.randomBytes(32).toString('base64url');
  const codeChallenge = crypto.createHash('sha256').update(codeVerifier).digest('base64url');
  return { codeVerifier, codeChallenge, state: crypto.randomBytes(16).toString('base64url') };
}

/** Where to send the person who grants access (authorization-code flow with PKCE, S256). */
export function authorizationUrl(
  endpoints: OAuthEndpoints,
  client: OAuthClient,
  input: { redirectUri: string; state: string; codeChallenge: string; loginHint?: string },
): string {
  const url = new URL(endpoints.authorizationUrl);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: input.redirectUri,
    scope: endpoints.scopes.join(' '),
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
    ...(input.loginHint ? { login_hint: input.loginHint } : {}),
    ...endpoints.authorizationParams,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

/**
 * The mailbox address an ID token names: its `email` claim, unless the provider says the address
 * is not verified or the token was issued to another client. The signature is not checked: the
 * token came straight from the token endpoint over TLS, which OpenID Connect Core 3.1.3.7 accepts
 * in place of it. Undefined when the token names no usable address.
 */
export function emailOfIdToken(idToken: string, client: OAuthClient): string | undefined {
  let claims: ReturnType<typeof decodeJwt>;
  try {
    claims = decodeJwt(idToken);
  } catch {
    return undefined;
  }
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
  if (audiences.length > 0 && !audiences.includes(client.clientId)) return undefined;
  if (claims.email_verified === false || claims.email_verified === 'false') return undefined;
  return typeof claims.email === 'string' && claims.email ? claims.email : undefined;
}
