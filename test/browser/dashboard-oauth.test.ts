// Engines: SQLite only: the dashboard's OAuth flows in Chromium, a door.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { checkPage, signInWithLink, signInWithPassword } from '../helpers/dashboard.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import { ADMIN_TOKEN, FAST_IMAP } from '../helpers/imap-setup.js';
import type { OAuthProvider } from '../helpers/oauth-provider.js';
import { gmailAt, startOAuthProvider } from '../helpers/oauth-provider.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';

// The dashboard's "Connect" button (issue 17): the browser goes to the provider's consent page
// and back, the code is exchanged with the PKCE verifier, and the mailbox is synced from Dovecot,
// whose oauth2 passdb asks the same local provider about every token. The gmail preset is pointed
// at them: the real Google cannot be reached here.
const ADDRESS = 'owner@example.net';
const TYPED = 'typed@example.net';
const GMAIL_BUTTON = 'Connect Gmail / Google Workspace';

describe('connecting a mailbox with the Connect button (OAuth2, authorization code with PKCE)', () => {
  let oauth: OAuthProvider;
  let dovecot: Dovecot;
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    [oauth, browser] = await Promise.all([startOAuthProvider(), launchBrowser()]);
    dovecot = await startDovecot({ oauth2IntrospectionUrl: oauth.introspectionUrl });
    for (const address of [ADDRESS, TYPED]) dovecot.addUser(address, 'the-other-clients-password');
    for (const address of [ADDRESS, TYPED]) {
      const other = await dovecot.client(address);
      await other.append('INBOX', rawMessage({ subject: `Waiting for ${address}`, to: address }), []);
      await other.logout();
    }
    server = await startServer({
      adminToken: ADMIN_TOKEN,
      imapOptions: FAST_IMAP,
      ...gmailAt(oauth, dovecot.port),
      // The "provider's" servers are on 127.0.0.1: a user may connect them only with the setting on.
      connectAllowPrivate: true,
    });
    oauth.redirectUri = `${server.baseUrl}/inboxes/oauth/callback`;
    ({ context, page } = await signInWithLink(browser, server));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    await dovecot?.stop();
    await oauth?.close();
  });

  /** On the Inboxes page: the address typed (or none), then the Gmail button; the consent page answers. */
  const connect = async (address: string, decision: 'Allow' | 'Deny', on = page) => {
    await on.goto(`${server.baseUrl}/inboxes`);
    await on.getByLabel(/Mailbox address/).fill(address);
    await on.getByRole('button', { name: GMAIL_BUTTON }).click();
    await on.waitForURL(`${oauth.authorizationUrl}?**`, { timeout: 15_000 });
    await on.getByRole('button', { name: decision }).click();
  };
  const attemptsLeft = async () =>
    Number(
      (await server.mailroom.deps.store.db.rawFirst<{ n: number | string }>(
        'SELECT count(*) AS n FROM oauth_attempts',
      ))!.n,
    );

  it('offers a button per provider whose client id is set; the consent comes back to Inboxes, connected and syncing', async () => {
    await page.goto(`${server.baseUrl}/inboxes`);
    expect(await page.getByRole('button', { name: GMAIL_BUTTON }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /Connect Microsoft/ }).count()).toBe(0);
    await checkPage(page, 'inboxes-oauth');
    // On a phone the long button label wraps instead of widening the page.
    await page.setViewportSize({ width: 375, height: 812 });
    const inside = (await page.locator('#oauth-title').boundingBox())!; // the panel's content box
    for (const control of [
      page.getByRole('button', { name: GMAIL_BUTTON }),
      page.getByLabel(/Mailbox address/),
    ]) {
      const box = (await control.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(inside.x + inside.width + 0.5);
    }
    await page.setViewportSize({ width: 1280, height: 720 });

    await connect(ADDRESS, 'Allow');
    await page.waitForURL(/\/inboxes\?done=oauth-connected$/);
    expect(await page.getByRole('status').textContent()).toMatch(
      /connected with the access the provider gave/,
    );
    // What the provider was asked: PKCE S256, the registered redirect URI, offline access.
    const asked = oauth.authorizations.at(-1)!;
    expect(Object.fromEntries(asked)).toMatchObject({
      redirect_uri: `${server.baseUrl}/inboxes/oauth/callback`,
      code_challenge_method: 'S256',
      login_hint: ADDRESS,
      access_type: 'offline',
      prompt: 'consent',
    });
    expect(asked.get('scope')!.split(' ')).toEqual(
      expect.arrayContaining(['https://mail.google.com/', 'openid', 'email']),
    );
    expect(oauth.refusedCodes).toEqual([]);

    const row = page.getByRole('row', { name: new RegExp(ADDRESS) });
    await eventually(async () => {
      await page.reload();
      return (await row.textContent())?.includes('Up to date');
    }, 30_000);
    expect(await row.textContent()).toContain('Connected (IMAP)');
    await checkPage(page, 'inboxes-oauth-connected');
    await page.goto(`${server.baseUrl}/mail?account=${encodeURIComponent(ADDRESS)}&folder=INBOX`);
    await page.getByRole('link', { name: new RegExp(`Waiting for ${ADDRESS}`) }).waitFor();

    // The refresh token is sealed like a password; the attempt is gone.
    const stored = await server.mailroom.deps.store.inboxes.findByAddress(ADDRESS);
    expect(JSON.stringify(stored)).not.toMatch(/rt-[0-9a-f]{24}/);
    expect(await attemptsLeft()).toBe(0);
  });

  it('refuses a reused or tampered state in plain words, connecting nothing', async () => {
    const used = oauth.redirects.at(-1)!;
    const again = await page.goto(used);
    expect(again!.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toMatch(
      /does not match a connection started here, or it was already used/,
    );
    await checkPage(page, 'oauth-refused');

    const tampered = new URL(used);
    tampered.searchParams.set('state', `${tampered.searchParams.get('state')!.slice(0, -2)}xx`);
    expect((await page.goto(tampered.toString()))!.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toMatch(/does not match a connection started here/);
    expect(oauth.refusedCodes).toEqual([]); // the provider was not even asked
  });

  it("refuses a state in another user's session, which leaves it to the user who started it", async () => {
    const made = await server.api('/admin/v1/users', {
      key: ADMIN_TOKEN,
      body: { name: 'bob', password: 'bobs long password' },
    });
    expect(made.status, made.text).toBe(201);
    const bob = await signInWithPassword(browser, server, 'bob', 'bobs long password');
    try {
      // The provider names no address this time: the one typed before is the mailbox's.
      oauth.idTokenEmail = false;
      oauth.holdRedirect = true;
      await connect(TYPED, 'Allow');
      await page.getByRole('link', { name: 'Back to the app' }).waitFor();
      oauth.holdRedirect = false;
      const callback = oauth.redirects.at(-1)!;

      expect((await bob.page.goto(callback))!.status()).toBe(403);
      expect(await bob.page.getByRole('alert').textContent()).toMatch(/started by another user/);

      await page.goto(callback);
      await page.waitForURL(/\/inboxes\?done=oauth-connected$/);
      expect(await page.getByRole('row', { name: new RegExp(TYPED) }).count()).toBe(1);
      expect(await bob.page.goto(`${server.baseUrl}/inboxes`)).toBeTruthy();
      expect(await bob.page.getByRole('row', { name: new RegExp(TYPED) }).count()).toBe(0);
    } finally {
      oauth.idTokenEmail = true;
      oauth.holdRedirect = false;
      await bob.context.close();
    }
  });

  it('says so when consent is denied at the provider, or when no address is known', async () => {
    const before = (await server.mailroom.deps.store.inboxes.list()).length;
    await connect('', 'Deny');
    await page.waitForURL(/\/inboxes\/oauth\/callback\?/);
    expect(await page.getByRole('alert').textContent()).toMatch(
      /Access was not granted at Gmail \/ Google Workspace \(access_denied: The user denied access\.\)\. Nothing was connected/,
    );
    await checkPage(page, 'inboxes-oauth-denied');

    oauth.idTokenEmail = false;
    try {
      await connect('', 'Allow');
      await page.waitForURL(/\/inboxes\/oauth\/callback\?/);
      expect(await page.locator('main').textContent()).toMatch(/did not say which address was granted/);
    } finally {
      oauth.idTokenEmail = true;
    }
    expect((await server.mailroom.deps.store.inboxes.list()).length).toBe(before);
  });

  it('shows no Connect button when no OAuth client id is set', async () => {
    const plain = await startServer();
    try {
      const signedIn = await signInWithLink(browser, plain);
      await signedIn.page.goto(`${plain.baseUrl}/inboxes`);
      expect(await signedIn.page.getByRole('heading', { name: /signing in at your provider/ }).count()).toBe(
        0,
      );
      expect(
        await signedIn.page.getByRole('button', { name: /^Connect (Gmail|Microsoft|Yahoo)/ }).count(),
      ).toBe(0);
      expect(await signedIn.page.getByRole('button', { name: 'Connect mailbox' }).count()).toBe(1);
      await signedIn.context.close();
    } finally {
      await plain.stop();
    }
  });
});
