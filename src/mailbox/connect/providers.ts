/**
 * Hosted mail providers a mailbox can be connected by name: their servers, ports, TLS and how
 * they log in, from each provider's own documentation (the comments say where). One table, so a
 * changed host is one line; tests replace entries to point them at a local server.
 */
export const PROVIDER_NAMES = ['gmail', 'microsoft', 'yahoo', 'icloud', 'fastmail'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface ServerEndpoint {
  host: string;
  port: number;
  /** `tls`: TLS from the first byte (IMAPS 993, SMTPS 465); `starttls`: upgraded (587). */
  security: 'tls' | 'starttls' | 'none';
}

/** An OAuth2 authorization server: where tokens come from and what to ask for. */
export interface OAuthEndpoints {
  authorizationUrl: string;
  tokenUrl: string;
  scopes: string[];
  /** Extra authorization-request parameters (Google returns a refresh token only when asked offline). */
  authorizationParams?: Record<string, string>;
}

export interface ProviderPreset {
  label: string;
  imap: ServerEndpoint;
  smtp: ServerEndpoint;
  /** `oauth2`: only OAuth2 tokens are accepted; `password`: an app password; `either`. */
  auth: 'oauth2' | 'password' | 'either';
  oauth?: OAuthEndpoints;
  /** The IMAP login name: the whole address (default) or its local part (iCloud). */
  imapUser?: 'address' | 'local-part';
}

export type ProviderTable = Record<ProviderName, ProviderPreset>;

export const PROVIDERS: ProviderTable = {
  // support.google.com/mail/answer/7126229 (servers); developers.google.com/gmail/imap/xoauth2-protocol
  // and developers.google.com/identity/protocols/oauth2/web-server (OAuth2).
  gmail: {
    label: 'Gmail / Google Workspace',
    imap: { host: 'imap.gmail.com', port: 993, security: 'tls' },
    smtp: { host: 'smtp.gmail.com', port: 465, security: 'tls' },
    auth: 'either',
    oauth: {
      authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      // openid email: an ID token naming the address (the dashboard's Connect button reads it).
      scopes: ['https://mail.google.com/', 'openid', 'email'],
      authorizationParams: { access_type: 'offline', prompt: 'consent' },
    },
  },
  // learn.microsoft.com/exchange/client-developer/legacy-protocols/how-to-authenticate-an-imap-pop-smtp-application-by-using-oauth
  // (basic authentication is off for Exchange Online: OAuth2 only).
  microsoft: {
    label: 'Microsoft 365 / Outlook.com',
    imap: { host: 'outlook.office365.com', port: 993, security: 'tls' },
    smtp: { host: 'smtp.office365.com', port: 587, security: 'starttls' },
    auth: 'oauth2',
    oauth: {
      authorizationUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
      tokenUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
      scopes: [
        'https://outlook.office.com/IMAP.AccessAsUser.All',
        'https://outlook.office.com/SMTP.Send',
        'offline_access',
        'openid',
        'email',
      ],
    },
  },
  // help.yahoo.com/kb/SLN4075.html (servers, app passwords); developer.yahoo.com/oauth2/guide/ (OAuth2).
  yahoo: {
    label: 'Yahoo Mail',
    imap: { host: 'imap.mail.yahoo.com', port: 993, security: 'tls' },
    smtp: { host: 'smtp.mail.yahoo.com', port: 465, security: 'tls' },
    auth: 'either',
    oauth: {
      authorizationUrl: 'https://api.login.yahoo.com/oauth2/request_auth',
      tokenUrl: 'https://api.login.yahoo.com/oauth2/get_token',
      scopes: ['mail-w'],
    },
  },
  // support.apple.com/en-us/102525: app-specific password; the IMAP user is the address's name part.
  icloud: {
    label: 'iCloud Mail',
    imap: { host: 'imap.mail.me.com', port: 993, security: 'tls' },
    smtp: { host: 'smtp.mail.me.com', port: 587, security: 'starttls' },
    auth: 'password',
    imapUser: 'local-part',
  },
  // fastmail.help/hc/en-us/articles/1500000278342 (server names and ports; app passwords).
  fastmail: {
    label: 'Fastmail',
    imap: { host: 'imap.fastmail.com', port: 993, security: 'tls' },
    smtp: { host: 'smtp.fastmail.com', port: 465, security: 'tls' },
    auth: 'password',
  },
};

export function isProviderName(name: string): name is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(name);
}

/** `imaps://user@host:993` (no password: it is added, or OAuth2 is used, by the caller). */
export function serverUrl(kind: 'imap' | 'smtp', endpoint: ServerEndpoint, user: string): string {
  const scheme = endpoint.security === 'tls' ? `${kind}s` : kind;
  return `${scheme}://${encodeURIComponent(user)}@${endpoint.host}:${endpoint.port}`;
}

/** The IMAP and SMTP URLs of a mailbox at a provider, with the login name each server expects. */
export function providerUrls(preset: ProviderPreset, address: string): { imap: string; smtp: string } {
  const imapUser = preset.imapUser === 'local-part' ? address.split('@')[0]! : address;
  return { imap: serverUrl('imap', preset.imap, imapUser), smtp: serverUrl('smtp', preset.smtp, address) };
}
