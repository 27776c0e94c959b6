import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A local OAuth2 authorization server for the tests (the real Google and Microsoft endpoints
 * cannot be reached here): a token endpoint for the refresh grant (RFC 6749 section 6) and a
 * token-introspection endpoint (RFC 7662) that Dovecot's oauth2 passdb asks. Also an SMTP server
 * that takes XOAUTH2 with the same tokens, as a provider's submission server does.
 */
export interface OAuthProvider {
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
  /** Messages the SMTP server took, with the user that logged in. */
  submitted: { user: string; raw: string }[];
  /** Every access token issued so far stops working (the refresh tokens still work). */
  expireAccessTokens(): void;
  /** The refresh token is revoked (refresh answers invalid_grant), its access tokens too. */
  revoke(refreshToken: string): void;
  close(): Promise<void>;
}

export const OAUTH_CLIENT = { id: 'mailroom-test-client', secret: 'mailroom-test-client-secret' };

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

  const provider: OAuthProvider = {
    tokenUrl: '',
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
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (req.url === '/token') {
        if (form.get('client_id') !== OAUTH_CLIENT.id || form.get('client_secret') !== OAUTH_CLIENT.secret)
          return json(res, 401, { error: 'invalid_client' });
        const refresh = refreshTokens.get(form.get('refresh_token') ?? '');
        if (form.get('grant_type') !== 'refresh_token' || !refresh || refresh.revoked)
          return json(res, 400, {
            error: 'invalid_grant',
            error_description: 'Token has been expired or revoked.',
          });
        provider.refreshes++;
        const token = `at-${crypto.randomBytes(12).toString('hex')}`;
        accessTokens.set(token, {
          user: refresh.user,
          expiresAt: Date.now() + provider.lifetimeSeconds * 1000,
          refreshToken: form.get('refresh_token')!,
          dead: false,
        });
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
      if (req.url === '/introspect') {
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
