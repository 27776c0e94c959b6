import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { SMTPServer } from 'smtp-server';
import { PROVIDERS } from '../../src/mailbox/connect/providers.js';
import type { MailroomOptions } from '../../src/mailroom.js';

/**
 * A local OAuth2 authorization server for the tests (the real Google and Microsoft endpoints
 * cannot be reached here): an authorization endpoint with a consent page (authorization code
 * with PKCE, RFC 7636), a token endpoint for the code and refresh grants (RFC 6749 4.1.3 and 6)
 * answering an ID token with the address, and a token-introspection endpoint (RFC 7662) that
 * Dovecot's oauth2 passdb asks. Also an SMTP server that takes XOAUTH2 with the same tokens, as a
 * provider's submission server does.
 */
export interface OAuthProvider {
  /** The consent page: it refuses a request without S256 PKCE, with another client or redirect URI. */
  authorizationUrl: string;
  tokenUrl: string;
  introspectionUrl: string;
  /** `smtp://127.0.0.1:port` of the XOAUTH2 submission server. */
  smtpUrl: string;
  /** A refresh token for a user (the result of someone granting access). */
  grant(user: string): string;
  /** Access tokens issued from now on live this long. */
  lifetimeSeconds: number;
  /** Each refresh answers a new refresh token and retires the one used (as Microsoft does). */
  rotate: boolean;
  /** Refresh requests answered, and access tokens each refresh token got. */
  refreshes: number;
  /** Every access token the servers accepted at login (IMAP via introspection, SMTP directly). */
  accepted: string[];
  /** Every access token a server asked about that was no longer good. */
  rejected: string[];
  /** The only redirect URI the authorization and token endpoints take (the one registered). */
  redirectUri: string;
  /** The query of every request to the authorization endpoint. */
  authorizations: URLSearchParams[];
  /** Where the consent page sent the browser back, each time. */
  redirects: string[];
  /** Code exchanges refused, with why (a wrong verifier, a used code...). */
  refusedCodes: string[];
  /** The consent page shows a link back instead of redirecting (a test takes the link elsewhere). */
  holdRedirect: boolean;
  /** Whether the ID token names the address (`email`); otherwise it names only a subject. */
  idTokenEmail: boolean;
  /** Messages the SMTP server took, with the user that logged in. */
  submitted: { user: string; raw: string }[];
  /** Every access token issued so far stops working (the refresh tokens still work). */
  expireAccessTokens(): void;
  /** The refresh token is revoked (refresh answers invalid_grant), its access tokens too. */
  revoke(refreshToken: string): void;
  close(): Promise<void>;
}

export const OAUTH_CLIENT = { id: 'mailroom-test-client', secret: 'mailroom-test-client-secret' };

/**
 * Server options making the gmail preset this provider's: IMAP at `imapPort` (a Dovecot asking
 * the provider about tokens), its XOAUTH2 SMTP server, its endpoints, and the team's client set.
 */
export function gmailAt(oauth: OAuthProvider, imapPort: number): Pick<MailroomOptions, 'env' | 'lookups'> {
  return {
    env: {
      MAILROOM_OAUTH_GMAIL_CLIENT_ID: OAUTH_CLIENT.id,
      MAILROOM_OAUTH_GMAIL_CLIENT_SECRET: OAUTH_CLIENT.secret,
    },
    lookups: {
      providers: {
        ...PROVIDERS,
        gmail: {
          ...PROVIDERS.gmail,
          imap: { host: '127.0.0.1', port: imapPort, security: 'none' },
          smtp: { host: '127.0.0.1', port: Number(new URL(oauth.smtpUrl).port), security: 'none' },
          oauth: {
            ...PROVIDERS.gmail.oauth!,
            authorizationUrl: oauth.authorizationUrl,
            tokenUrl: oauth.tokenUrl,
          },
        },
      },
    },
  };
}

export async function startOAuthProvider(): Promise<OAuthProvider> {
  const refreshTokens = new Map<string, { user: string; revoked: boolean }>();
  const accessTokens = new Map<
    string,
    { user: string; expiresAt: number; refreshToken: string; dead: boolean }
  >();
  const active = (token: string) => {
    const t = accessTokens.get(token);
    return t && !t.dead && Date.now() < t.expiresAt && !refreshTokens.get(t.refreshToken)?.revoked ? t : null;
  };

  const codes = new Map<string, { user: string; challenge: string; redirectUri: string; used: boolean }>();
  const idTokenKey = crypto.randomBytes(32);

  const provider: OAuthProvider = {
    authorizationUrl: '',
    tokenUrl: '',
    redirectUri: '',
    authorizations: [],
    redirects: [],
    refusedCodes: [],
    idTokenEmail: true,
    holdRedirect: false,
    introspectionUrl: '',
    smtpUrl: '',
    lifetimeSeconds: 3600,
    rotate: false,
    refreshes: 0,
    accepted: [],
    rejected: [],
    submitted: [],
    grant(user) {
      const token = `rt-${crypto.randomBytes(12).toString('hex')}`;
      refreshTokens.set(token, { user, revoked: false });
      return token;
    },
    expireAccessTokens() {
      for (const t of accessTokens.values()) t.dead = true;
    },
    revoke(refreshToken) {
      const t = refreshTokens.get(refreshToken);
      if (t) t.revoked = true;
    },
    async close() {
      await new Promise((r) => server.close(r));
      await new Promise((r) => smtp.close(() => r(undefined)));
    },
  };

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const issueAccessToken = (user: string, refreshToken: string) => {
    const token = `at-${crypto.randomBytes(12).toString('hex')}`;
    accessTokens.set(token, {
      user,
      expiresAt: Date.now() + provider.lifetimeSeconds * 1000,
      refreshToken,
      dead: false,
    });
    return token;
  };

  /** What a request to the authorization endpoint gets wrong, in words (none: an empty list). */
  const problemsOf = (q: URLSearchParams): string[] => [
    ...(q.get('response_type') === 'code' ? [] : ['response_type is not code']),
    ...(q.get('client_id') === OAUTH_CLIENT.id ? [] : ['unknown client_id']),
    ...(q.get('redirect_uri') === provider.redirectUri
      ? []
      : [`redirect_uri is not ${provider.redirectUri}`]),
    ...(q.get('code_challenge_method') === 'S256' ? [] : ['code_challenge_method is not S256']),
    ...(/^[\w-]{43}$/.test(q.get('code_challenge') ?? '') ? [] : ['no S256 code_challenge']),
    ...(q.get('state') ? [] : ['no state']),
  ];

  const consentPage = (res: http.ServerResponse, q: URLSearchParams) => {
    provider.authorizations.push(q);
    const problems = problemsOf(q);
    if (problems.length > 0) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      return res.end(`invalid authorization request: ${problems.join('; ')}`);
    }
    const hidden = ['redirect_uri', 'state', 'code_challenge']
      .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(q.get(name)!)}">`)
      .join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><title>Test provider</title></head><body><main>
<h1>Allow Mailroom to read and send your mail?</h1>
<form method="post" action="/authorize">${hidden}
<label>Signed in as <input name="user" type="email" value="${escapeHtml(q.get('login_hint') ?? '')}"></label>
<button name="decision" value="allow">Allow</button> <button name="decision" value="deny">Deny</button>
</form></main></body></html>`);
  };

  const decide = (res: http.ServerResponse, form: URLSearchParams) => {
    const back = new URL(form.get('redirect_uri') ?? '');
    if (form.get('decision') === 'allow') {
      const code = `code-${crypto.randomBytes(12).toString('hex')}`;
      codes.set(code, {
        user: form.get('user') ?? '',
        challenge: form.get('code_challenge') ?? '',
        redirectUri: back.toString(),
        used: false,
      });
      back.searchParams.set('code', code);
    } else {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user denied access.');
    }
    back.searchParams.set('state', form.get('state') ?? '');
    provider.redirects.push(back.toString());
    if (!provider.holdRedirect) {
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><title>Test provider</title></head><body><main>
<a href="${escapeHtml(back.toString())}">Back to the app</a></main></body></html>`);
  };

  const exchangeCode = async (res: http.ServerResponse, form: URLSearchParams) => {
    const code = codes.get(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
    const problem = !code
      ? 'unknown code'
      : code.used
        ? 'code already used'
        : code.redirectUri !== form.get('redirect_uri')
          ? 'another redirect_uri'
          : code.challenge !== challenge
            ? 'the verifier does not match the challenge'
            : null;
    if (problem) {
      provider.refusedCodes.push(problem);
      return json(res, 400, { error: 'invalid_grant', error_description: problem });
    }
    code!.used = true;
    const refreshToken = provider.grant(code!.user);
    const idToken = await new SignJWT({
      ...(provider.idTokenEmail ? { email: code!.user, email_verified: true } : {}),
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(base)
      .setAudience(OAUTH_CLIENT.id)
      .setSubject(crypto.createHash('sha256').update(code!.user).digest('hex').slice(0, 20))
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(idTokenKey);
    json(res, 200, {
      access_token: issueAccessToken(code!.user, refreshToken),
      token_type: 'Bearer',
      expires_in: provider.lifetimeSeconds,
      refresh_token: refreshToken,
      id_token: idToken,
      scope: 'https://mail.google.com/ openid email',
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const url = new URL(req.url ?? '/', base);
      if (url.pathname === '/authorize' && req.method === 'GET') return consentPage(res, url.searchParams);
      if (url.pathname === '/authorize' && req.method === 'POST') return decide(res, form);
      if (url.pathname === '/token') {
        if (form.get('client_id') !== OAUTH_CLIENT.id || form.get('client_secret') !== OAUTH_CLIENT.secret)
          return json(res, 401, { error: 'invalid_client' });
        if (form.get('grant_type') === 'authorization_code') return void exchangeCode(res, form);
        const refresh = refreshTokens.get(form.get('refresh_token') ?? '');
        if (form.get('grant_type') !== 'refresh_token' || !refresh || refresh.revoked)
          return json(res, 400, {
            error: 'invalid_grant',
            error_description: 'Token has been expired or revoked.',
          });
        provider.refreshes++;
        const token = issueAccessToken(refresh.user, form.get('refresh_token')!);
        let rotated: string | undefined;
        if (provider.rotate) {
          // The refresh token used is retired; tokens already issued stay good until they expire.
          refresh.revoked = true;
          rotated = provider.grant(refresh.user);
          for (const t of accessTokens.values())
            if (t.refreshToken === form.get('refresh_token')) t.refreshToken = rotated;
        }
        return json(res, 200, {
          access_token: token,
          token_type: 'Bearer',
          expires_in: provider.lifetimeSeconds,
          ...(rotated ? { refresh_token: rotated } : {}),
        });
      }
      if (url.pathname === '/introspect') {
        const token = form.get('token') ?? '';
        const t = active(token);
        (t ? provider.accepted : provider.rejected).push(token);
        return json(res, 200, t ? { active: true, username: t.user } : { active: false });
      }
      json(res, 404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider.authorizationUrl = `${base}/authorize`;
  provider.tokenUrl = `${base}/token`;
  provider.introspectionUrl = `${base}/introspect`;

  const smtp = new SMTPServer({
    authMethods: ['XOAUTH2'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      const t = auth.accessToken ? active(auth.accessToken) : null;
      if (!t || t.user !== auth.username) {
        provider.rejected.push(auth.accessToken ?? '');
        return callback(null, { data: { status: '401', schemes: 'bearer' } });
      }
      provider.accepted.push(auth.accessToken!);
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        provider.submitted.push({ user: String(session.user), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  provider.smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  return provider;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
