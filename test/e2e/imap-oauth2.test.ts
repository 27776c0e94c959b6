// Engines: SQLite only: IMAP sign-in by OAuth2 against Dovecot, a protocol rule; postgres-doors syncs from Dovecot on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dovecot } from '../helpers/dovecot.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import { ADMIN_TOKEN, FAST_IMAP } from '../helpers/imap-setup.js';
import type { OAuthProvider } from '../helpers/oauth-provider.js';
import { gmailAt, startOAuthProvider } from '../helpers/oauth-provider.js';
import type { TestServer } from '../helpers/server.js';
import { startServer } from '../helpers/server.js';

// OAuth2 for IMAP and SMTP (issue 17): Dovecot's oauth2 passdb checks every token against a local
// introspection endpoint; the same local provider serves the token endpoint and an SMTP server
// taking XOAUTH2. The gmail preset is pointed at them: the real Google cannot be reached here.
const ADDRESS = 'owner@example.net';
const ROTATING = 'rotating@example.net';

describe('a mailbox connected with an OAuth2 refresh token', { timeout: 90_000 }, () => {
  let oauth: OAuthProvider;
  let dovecot: Dovecot;
  let server: TestServer;
  let refreshToken: string;

  const account = async () => {
    const accounts = (await server.api('/accounts')).json.data.accounts as {
      address: string;
      sync: { state: string; error: string | null };
    }[];
    return accounts.find((a) => a.address === ADDRESS)!;
  };
  const inboxSubjects = async (address = ADDRESS) => {
    const res = await server.api(`/emails?account=${encodeURIComponent(address)}&folder=INBOX&limit=100`);
    if (res.status !== 200) throw new Error(`list: ${res.status} ${res.text}`);
    return (res.json.data.emails as { subject: string }[]).map((e) => e.subject);
  };
  /** Like `eventually`, asking every 250 ms: the API's rate limit is 600 requests a minute. */
  const slowly = async <T>(check: () => Promise<T | null | false>, timeoutMs = 30_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value) return value;
      if (Date.now() > deadline)
        throw new Error(`not met in time; the account: ${JSON.stringify(await account())}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  /** Mail appended by another client shows up: the sync is logged in again. */
  const arrives = async (subject: string, address = ADDRESS) => {
    const other = await dovecot.client(address);
    await other.append('INBOX', rawMessage({ subject, to: address }), []);
    await other.logout();
    await slowly(async () => (await inboxSubjects(address)).includes(subject));
  };

  beforeAll(async () => {
    oauth = await startOAuthProvider();
    dovecot = await startDovecot({ oauth2IntrospectionUrl: oauth.introspectionUrl });
    dovecot.addUser(ADDRESS, 'the-other-clients-password');
    dovecot.addUser(ROTATING, 'another-password');
    server = await startServer({
      adminToken: ADMIN_TOKEN,
      imapOptions: FAST_IMAP,
      ...gmailAt(oauth, dovecot.port),
    });
    refreshToken = oauth.grant(ADDRESS);
  });
  afterAll(async () => {
    await server?.stop();
    await dovecot?.stop();
    await oauth?.close();
  });

  it('connects by provider and refresh token alone, logging in with a token (no password stored)', async () => {
    const res = await server.api('/admin/v1/inboxes', {
      key: ADMIN_TOKEN,
      body: { address: ADDRESS, user: 'default', provider: 'gmail', refreshToken },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.servers).toMatchObject({
      auth: 'oauth2',
      imap: `imap://owner%40example.net@127.0.0.1:${dovecot.port}`,
      source: expect.stringContaining('gmail preset'),
    });
    expect(res.text).not.toContain(refreshToken);
    await slowly(async () => (await account()).sync.state === 'synced');
    expect(oauth.accepted.length).toBeGreaterThan(0);
    await arrives('First by OAuth2');
    // Sealed like the passwords: the refresh token is nowhere in the stored row.
    const row = await server.mailroom.deps.store.inboxes.findByAddress(ADDRESS);
    expect(JSON.stringify(row)).not.toContain(refreshToken);
  });

  it('sends through the SMTP server with XOAUTH2', async () => {
    const res = await server.api('/emails/send', {
      body: { from: ADDRESS, to: 'dave@example.com', subject: 'Sent with a token', text: 'hello' },
    });
    expect(res.status, res.text).toBe(200);
    expect(oauth.submitted.map((m) => m.user)).toEqual([ADDRESS]);
    expect(oauth.submitted[0]!.raw).toContain('Subject: Sent with a token');
  });

  it('refreshes the access token before it expires, so no login is refused', async () => {
    oauth.lifetimeSeconds = 4;
    oauth.expireAccessTokens(); // the next login needs a new token, which lives 4 s
    await dovecot.restart();
    await arrives('After a restart');
    const refreshes = oauth.refreshes;
    const rejected = oauth.rejected.length;
    // The token held now has at most 1.5 s left: inside the margin, so it is replaced before use.
    await new Promise((r) => setTimeout(r, 2500));
    await dovecot.restart();
    await arrives('After the token expired');
    expect(oauth.refreshes).toBeGreaterThan(refreshes);
    // Refreshed ahead of its expiry: the server never saw an expired token.
    expect(oauth.rejected.length).toBe(rejected);
    oauth.lifetimeSeconds = 3600;
  });

  it('refreshes at once when a token it still thought good is refused', async () => {
    // The 4 s tokens of the test before are past; the next login gets one that lives an hour.
    await new Promise((r) => setTimeout(r, 4500));
    await dovecot.restart();
    await arrives('Before the refusal');
    const refreshes = oauth.refreshes;
    const rejected = oauth.rejected.length;
    oauth.expireAccessTokens(); // revoked by the provider long before its expiry
    await dovecot.restart();
    await arrives('After the refusal');
    expect(oauth.rejected.length).toBeGreaterThan(rejected);
    expect(oauth.refreshes).toBeGreaterThan(refreshes);
    await slowly(async () => (await account()).sync.state === 'synced');
  });

  it('shows the mailbox in error, saying why, when the refresh token is revoked', async () => {
    oauth.revoke(refreshToken);
    await dovecot.restart();
    const shown = await slowly(async () => {
      const a = await account();
      // First the dropped connection is the error; then the reconnect's refused refresh.
      return a.sync.state === 'error' && a.sync.error?.includes('OAuth2') ? a.sync : null;
    });
    expect(shown.error).toMatch(/refused the refresh token \(invalid_grant.*new refresh token/);
  });

  it('refuses to connect when the refresh token is already refused, storing nothing', async () => {
    const res = await server.api('/admin/v1/inboxes', {
      key: ADMIN_TOKEN,
      body: { address: 'second@example.net', user: 'default', provider: 'gmail', refreshToken: 'rt-unknown' },
    });
    expect(res.status).toBe(502);
    expect(res.json.error.message).toContain('refresh token');
    expect(await server.mailroom.deps.store.inboxes.findByAddress('second@example.net')).toBeUndefined();
  });

  it('stores a refresh token the provider rotates, so it still logs in after a restart', async () => {
    oauth.rotate = true;
    const first = oauth.grant(ROTATING);
    const res = await server.api('/admin/v1/inboxes', {
      key: ADMIN_TOKEN,
      body: { address: ROTATING, user: 'default', provider: 'gmail', refreshToken: first },
    });
    expect(res.status, res.text).toBe(201);
    const synced = async () => {
      const accounts = (await server.api('/accounts')).json.data.accounts as {
        address: string;
        sync: { state: string; error: string | null };
      }[];
      return accounts.find((a) => a.address === ROTATING)?.sync.state === 'synced';
    };
    await slowly(synced);
    const refreshes = oauth.refreshes;
    // Every token refreshed so far was retired by the next refresh: only the stored one works.
    await server.restart();
    await arrives('After the restart', ROTATING);
    expect(oauth.refreshes).toBeGreaterThan(refreshes);
    const row = await server.mailroom.deps.store.inboxes.findByAddress(ROTATING);
    expect(JSON.stringify(row)).not.toContain('rt-');
    oauth.rotate = false;
  });
});
