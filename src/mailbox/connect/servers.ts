import type { z } from '@hono/zod-openapi';
import type { ConnectedServers } from '../../contract/admin.js';
import type { Config } from '../../config.js';
import type { Resolver } from '../../net/reach.js';
import { Unprocessable, ValidationFailed } from '../errors.js';
import type { OAuthGrant } from '../remote.js';
import { NothingDiscovered, discoverServers } from './autodiscover.js';
import type { ConnectLookups } from './lookups.js';
import { oauthOf } from './lookups.js';
import type { ProviderName } from './providers.js';
import { isProviderName, providerUrls } from './providers.js';

/** How a mailbox is to be reached: any of URLs, a provider, or the address alone; a password or a refresh token. */
export interface ServerChoice {
  imap?: string;
  smtp?: string;
  provider?: string;
  password?: string;
  refreshToken?: string;
}

/** What the caller is told about the servers chosen (never a password). */
export type ServersView = z.infer<typeof ConnectedServers>;

export interface ResolvedServers {
  imap: string;
  smtp: string;
  oauth2?: OAuthGrant;
  view: ServersView;
}

/** A URL as shown: scheme, user, host and port, never the password. */
const shown = (url: string) => {
  const u = new URL(url);
  u.password = '';
  return u.toString().replace(/\/$/, '');
};

function withPassword(url: string, password: string | undefined): string {
  const u = new URL(url);
  if (password !== undefined && !u.password) u.password = encodeURIComponent(password);
  return u.toString();
}

/**
 * The IMAP and SMTP URLs and the login of a mailbox being connected: URLs given as they are; else
 * a provider's preset; else autodiscovery from the address's domain. A refresh token (with its
 * provider, whose token endpoint and the team's client refresh it) means OAuth2; else the
 * password fills the URLs that have none. With `publicOnly`, autodiscovery reads documents on
 * public addresses only.
 */
export async function resolveServers(
  config: Config,
  lookups: ConnectLookups,
  address: string,
  choice: ServerChoice,
  publicOnly?: Resolver,
): Promise<ResolvedServers> {
  let provider: ProviderName | undefined;
  if (choice.provider !== undefined) {
    if (!isProviderName(choice.provider))
      throw ValidationFailed.field(
        'provider',
        `unknown provider ${JSON.stringify(choice.provider)}: one of ${Object.keys(lookups.providers).join(', ')}`,
      );
    provider = choice.provider;
  }
  if ((choice.imap === undefined) !== (choice.smtp === undefined))
    throw ValidationFailed.field('smtp', 'an external mailbox needs both imap and smtp, or neither');
  if (choice.refreshToken !== undefined && choice.password !== undefined)
    throw ValidationFailed.field('refreshToken', 'give a password or a refresh token, not both');

  let imap: string;
  let smtp: string;
  let source: string;
  let tried: string[] | undefined;
  let oauthOnly = false;
  if (choice.imap !== undefined && choice.smtp !== undefined) {
    ({ imap, smtp } = choice as { imap: string; smtp: string });
    source = 'the URLs given';
  } else if (provider) {
    const preset = lookups.providers[provider];
    ({ imap, smtp } = providerUrls(preset, address));
    source = `the ${provider} preset (${preset.label})`;
    oauthOnly = preset.auth === 'oauth2';
  } else {
    try {
      const found = await discoverServers(address, lookups, publicOnly);
      ({ imap, smtp, source, tried } = found);
      oauthOnly = found.oauth2;
    } catch (error) {
      if (error instanceof NothingDiscovered)
        throw new Unprocessable(`${error.message}. Give imap and smtp URLs, or a provider`);
      throw error;
    }
  }

  let oauth2: OAuthGrant | undefined;
  if (choice.refreshToken !== undefined) {
    if (!provider)
      throw ValidationFailed.field(
        'provider',
        'a refresh token needs its provider (gmail, microsoft, yahoo): its token endpoint refreshes it',
      );
    oauthOf(config, lookups, provider); // the team's client must be set before anything is tried
    if (!choice.refreshToken.trim())
      throw ValidationFailed.field('refreshToken', 'the refresh token is empty');
    oauth2 = { provider, refreshToken: choice.refreshToken.trim() };
  } else if (oauthOnly) {
    throw ValidationFailed.field(
      'refreshToken',
      `${provider ?? 'these servers'} accept only OAuth2: give a refresh token (and the provider)`,
    );
  } else {
    imap = withPassword(imap, choice.password);
    smtp = withPassword(smtp, choice.password);
  }
  return {
    imap,
    smtp,
    ...(oauth2 ? { oauth2 } : {}),
    view: {
      imap: shown(imap),
      smtp: shown(smtp),
      auth: oauth2 ? 'oauth2' : 'password',
      source,
      ...(tried && tried.length > 0 ? { tried } : {}),
    },
  };
}
