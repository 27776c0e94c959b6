import { isValidAddress } from '../../mail/addresses.js';
import type { InboxRow } from '../../store/inboxes.js';
import { nowIso } from '../../store/ids.js';
import type { MailboxDeps } from '../deps.js';
import { Forbidden, MailroomError, Upstream, ValidationFailed } from '../errors.js';
import { oauthOf, providersWithOAuthClient } from '../connect/lookups.js';
import {
  RefreshTokenRefused,
  TokenEndpointFailed,
  authorizationUrl,
  emailOfIdToken,
  exchangeAuthorizationCode,
  newAuthorizationAttempt,
} from '../connect/oauth2.js';
import type { ProviderName } from '../connect/providers.js';
import { isProviderName, providerUrls } from '../connect/providers.js';
import { refusePrivateServers } from '../connect/private-servers.js';
import type { ServersView } from '../connect/servers.js';
import { connectInbox } from './admin.js';

/** How long a person has at the provider between "Connect" and the redirect back. */
export const OAUTH_ATTEMPT_MS = 10 * 60_000;

/** A provider a mailbox can be connected with through the authorization-code flow. */
export interface OAuthProviderChoice {
  name: ProviderName;
  label: string;
  /** Where the browser is sent to grant access (the page's form-action must allow it). */
  authorizationOrigin: string;
}

/**
 * The state of a redirect back from a provider is not one this server gave the signed-in user,
 * or no longer good: nothing was asked of the provider.
 */
export class AuthorizationAttemptRefused extends MailroomError {}

/** The providers whose OAuth client is set (MAILROOM_OAUTH_<PROVIDER>_CLIENT_ID). */
export function oauthProviders(deps: MailboxDeps): OAuthProviderChoice[] {
  const lookups = deps.lookups;
  return providersWithOAuthClient(deps.config, lookups).map((name) => {
    const preset = lookups.providers[name];
    return {
      name,
      label: preset.label,
      authorizationOrigin: new URL(preset.oauth!.authorizationUrl).origin,
    };
  });
}

/**
 * Starts connecting a mailbox with OAuth2 (authorization code with PKCE, RFC 7636): a new state
 * and verifier are kept as a row for OAUTH_ATTEMPT_MS, and the answer is the provider's
 * authorization URL to send the browser to. `address`, when given, is passed as `login_hint` and
 * is the mailbox's address when the provider does not name one.
 */
export async function startOAuthConnect(
  deps: MailboxDeps,
  input: { user: number; provider: string; address?: string; redirectUri: string },
): Promise<string> {
  if (!isProviderName(input.provider))
    throw ValidationFailed.field('provider', `unknown provider ${JSON.stringify(input.provider)}`);
  const lookups = deps.lookups;
  const { endpoints, client } = oauthOf(deps.config, lookups, input.provider);
  const address = (input.address ?? '').trim().toLowerCase();
  if (address && !isValidAddress(address))
    throw ValidationFailed.field('address', `${JSON.stringify(input.address)} is not an email address`);
  // Before the person is sent to consent: the servers connectInbox will refuse are refused now.
  if (!deps.config.connectAllowPrivate)
    await refusePrivateServers(providerUrls(lookups.providers[input.provider], address), lookups.resolve);
  const attempt = newAuthorizationAttempt();
  const now = Date.now();
  // Starting is rare: a good moment to forget attempts no one came back from.
  await deps.store.oauthAttempts.prune(nowIso(new Date(now)));
  await deps.store.oauthAttempts.create({
    state: attempt.state,
    user_id: input.user,
    provider: input.provider,
    code_verifier: attempt.codeVerifier,
    redirect_uri: input.redirectUri,
    login_hint: address,
    created_at: nowIso(new Date(now)),
    expires_at: nowIso(new Date(now + OAUTH_ATTEMPT_MS)),
  });
  return authorizationUrl(endpoints, client, {
    redirectUri: input.redirectUri,
    state: attempt.state,
    codeChallenge: attempt.codeChallenge,
    ...(address ? { loginHint: address } : {}),
  });
}

/** The query of the provider's redirect back (RFC 6749 4.1.2 and 4.1.2.1). */
export interface OAuthCallback {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
  errorDescription?: string | undefined;
}

/**
 * Finishes connecting: the state must be one this server gave `user`, unused and under
 * OAUTH_ATTEMPT_MS old (AuthorizationAttemptRefused otherwise, and the attempt is spent); the
 * provider's own error is said as such; the code is exchanged with the kept verifier, and the
 * mailbox (the ID token's address, else the one typed at the start) is connected by
 * connectInbox with the refresh token, as the API connects one.
 */
export async function finishOAuthConnect(
  deps: MailboxDeps,
  user: number,
  callback: OAuthCallback,
): Promise<{ inbox: InboxRow; servers: ServersView }> {
  const attempt = callback.state ? await deps.store.oauthAttempts.find(callback.state) : undefined;
  const startAgain = 'Start again with the Connect button on the Inboxes page.';
  if (!attempt)
    throw new AuthorizationAttemptRefused(
      'validation_error',
      `This answer from the provider does not match a connection started here, or it was already used. ${startAgain}`,
    );
  if (attempt.user_id !== user)
    throw new AuthorizationAttemptRefused(
      'forbidden',
      `This connection was started by another user of this dashboard; it cannot be finished in your session. ${startAgain}`,
    );
  if (!(await deps.store.oauthAttempts.take(attempt.state_hash)))
    throw new AuthorizationAttemptRefused('validation_error', `This answer was already used. ${startAgain}`);
  if (attempt.expires_at <= nowIso())
    throw new AuthorizationAttemptRefused(
      'validation_error',
      `More than ${OAUTH_ATTEMPT_MS / 60_000} minutes went by at the provider. ${startAgain}`,
    );
  const provider = attempt.provider;
  if (!isProviderName(provider)) throw new Error(`an OAuth2 attempt names no known provider: ${provider}`);
  const lookups = deps.lookups;
  const label = lookups.providers[provider].label;
  if (callback.error) {
    const said = callback.errorDescription ? `: ${callback.errorDescription}` : '';
    if (callback.error === 'access_denied')
      throw new Forbidden(
        `Access was not granted at ${label} (access_denied${said}). Nothing was connected.`,
      );
    throw new Upstream(`${label} answered ${callback.error}${said}. Nothing was connected.`);
  }
  if (!callback.code) throw new Upstream(`${label} sent no authorization code back. Nothing was connected.`);

  const { endpoints, client } = oauthOf(deps.config, lookups, provider);
  let tokens;
  try {
    tokens = await exchangeAuthorizationCode(
      endpoints,
      client,
      { code: callback.code, codeVerifier: attempt.code_verifier, redirectUri: attempt.redirect_uri },
      lookups.fetch,
    );
  } catch (error) {
    if (error instanceof RefreshTokenRefused || error instanceof TokenEndpointFailed)
      throw new Upstream(`${error.message}. Nothing was connected.`);
    throw error;
  }
  if (!tokens.refreshToken)
    throw new Upstream(
      `${label} gave no refresh token, so the mailbox could not stay connected. Remove this app's access in your account's security settings, then connect again.`,
    );
  const address = (tokens.idToken && emailOfIdToken(tokens.idToken, client)) || attempt.login_hint;
  if (!address)
    throw ValidationFailed.field(
      'address',
      `${label} did not say which address was granted: type the address, then connect again`,
    );
  return connectInbox(deps, { address, user, by: 'user', provider, refreshToken: tokens.refreshToken });
}
