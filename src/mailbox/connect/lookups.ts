import type { Config } from '../../config.js';
import type { Resolver } from '../../net/reach.js';
import { defaultResolve } from '../../net/reach.js';
import { ValidationFailed } from '../errors.js';
import type { AutoconfigDns } from './autodiscover.js';
import { systemDns } from './autodiscover.js';
import type { FetchLike, OAuthClient } from './oauth2.js';
import type { OAuthEndpoints, ProviderName, ProviderTable } from './providers.js';
import { PROVIDERS } from './providers.js';

/**
 * What connecting a mailbox looks up outside: the provider table, DNS and HTTP (autodiscovery,
 * OAuth2 token endpoints), and the addresses a server's name resolves to (checked, then
 * connected to, for a mailbox a user connected). The real ones by default; a test points them
 * at local servers.
 */
export interface ConnectLookups {
  providers: ProviderTable;
  dns: AutoconfigDns;
  fetch: FetchLike;
  resolve: Resolver;
}

export function connectLookups(given: Partial<ConnectLookups> = {}): ConnectLookups {
  return {
    providers: given.providers ?? PROVIDERS,
    dns: given.dns ?? systemDns(),
    fetch: given.fetch ?? ((url, init) => fetch(url, init)),
    resolve: given.resolve ?? defaultResolve,
  };
}

const CLIENT_SETTINGS: Partial<Record<ProviderName, [keyof Config, keyof Config, string]>> = {
  gmail: ['oauthGmailClientId', 'oauthGmailClientSecret', 'MAILROOM_OAUTH_GMAIL_CLIENT_ID'],
  microsoft: ['oauthMicrosoftClientId', 'oauthMicrosoftClientSecret', 'MAILROOM_OAUTH_MICROSOFT_CLIENT_ID'],
  yahoo: ['oauthYahooClientId', 'oauthYahooClientSecret', 'MAILROOM_OAUTH_YAHOO_CLIENT_ID'],
};

/** The providers with OAuth2 whose client id is set: those the dashboard offers a "Connect" button for. */
export function providersWithOAuthClient(config: Config, lookups: ConnectLookups): ProviderName[] {
  return (Object.keys(CLIENT_SETTINGS) as ProviderName[]).filter(
    (name) => lookups.providers[name].oauth !== undefined && config[CLIENT_SETTINGS[name]![0]] !== undefined,
  );
}

/**
 * The token endpoint and the team's OAuth client for a provider, or a 400 naming what is missing
 * (a provider without OAuth2, or no client id set).
 */
export function oauthOf(
  config: Config,
  lookups: ConnectLookups,
  provider: ProviderName,
): { endpoints: OAuthEndpoints; client: OAuthClient } {
  const endpoints = lookups.providers[provider].oauth;
  const settings = CLIENT_SETTINGS[provider];
  if (!endpoints || !settings)
    throw ValidationFailed.field(
      'provider',
      `${provider} does not take OAuth2 here: give a password instead`,
    );
  const clientId = config[settings[0]] as string | undefined;
  const clientSecret = config[settings[1]] as string | undefined;
  if (!clientId)
    throw ValidationFailed.field(
      'oauth2',
      `OAuth2 with ${provider} needs the team's client id: set ${settings[2]} (and its _SECRET)`,
    );
  return { endpoints, client: { clientId, ...(clientSecret ? { clientSecret } : {}) } };
}
