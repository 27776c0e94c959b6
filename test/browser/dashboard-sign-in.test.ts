// Engines: SQLite only: the dashboard's sign-in in Chromium; postgres-doors signs in on PostgreSQL.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { checkPage, signInWithLink, signInWithPassword } from '../helpers/dashboard.js';
import type { TestServer } from '../helpers/server.js';
import { startServer } from '../helpers/server.js';

const ADMIN_TOKEN = 'dashboard-admin-token-0123456789';

describe('signing in to the dashboard', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ adminToken: ADMIN_TOKEN }), launchBrowser()]);
    const made = await server.api('/admin/v1/users', {
      key: ADMIN_TOKEN,
      body: { name: 'alice', password: 'correct horse battery' },
    });
    expect(made.status).toBe(201);
    expect(made.json.data.user).toMatchObject({ name: 'alice', admin: false });
    expect(made.text).not.toContain('correct horse');
    await server.api('/admin/v1/inboxes', {
      key: ADMIN_TOKEN,
      body: { address: 'alice@mailroom.test', user: 'alice' },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in once with the first-start link, into an HttpOnly SameSite cookie; the link then is spent', async () => {
    const { context, page } = await signInWithLink(browser, server);
    await expect.poll(() => page.getByRole('heading', { name: 'INBOX' }).count()).toBe(1);
    const cookie = (await context.cookies()).find((c) => c.name === 'mailroom_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
    expect(await page.getByRole('link', { name: 'Domains' }).count()).toBe(1); // default is an admin

    const again = await browser.newPage();
    await again.goto(server.mailroom.bootstrap!.signInLink);
    await checkPage(again, 'sign-in-link');
    await again.getByRole('button', { name: 'Continue to the dashboard' }).click();
    await expect.poll(() => again.getByRole('alert').textContent()).toMatch(/already used or has expired/);
    expect(again.url()).not.toMatch(/\/mail/);
    await checkPage(again, 'sign-in');
    await again.close();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in/);
    await page.goto(`${server.baseUrl}/keys`);
    expect(page.url()).toMatch(/\/sign-in\?next=%2Fkeys/);
    await context.close();
  });

  it('signs in with a password, and another user cannot reach the mail of default by changing a URL', async () => {
    await server.sendMail({
      from: 'x@example.com',
      to: server.inbox,
      subject: 'For default only',
      text: 'secret words',
    });
    const { context, page } = await signInWithPassword(browser, server, 'alice', 'correct horse battery');
    expect(await page.locator('.inbox-name').textContent()).toBe('alice@mailroom.test');
    expect(await page.getByRole('link', { name: 'Domains' }).count()).toBe(0); // not an admin
    const theirs = encodeURIComponent(server.inbox);
    for (const path of [
      `/mail?account=${theirs}`,
      `/mail/message?account=${theirs}&uid=1`,
      `/mail/message/body?account=${theirs}&uid=1`,
      `/mail/message/raw?account=${theirs}&uid=1`,
      `/compose?account=${theirs}&mode=reply&uid=1`,
      `/domains`,
    ]) {
      const res = await page.goto(`${server.baseUrl}${path}`);
      expect([403, 404], path).toContain(res!.status());
      const text = await page.content();
      expect(text, path).not.toContain('For default only');
      expect(text, path).not.toContain('secret words');
    }
    await context.close();
  });

  it('refuses a form another site posts into a signed-in session (403), and makes nothing', async () => {
    const { context, page } = await signInWithLink(browser, await freshLinkServer());
    const evil = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(
        `<!doctype html><form id="f" method="post" action="${server.baseUrl}/keys"><input name="name" value="stolen"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, 'localhost', resolve));
    const evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`;
    const answer = page.waitForResponse(
      (r) => r.url() === `${server.baseUrl}/keys` && r.request().method() === 'POST',
    );
    await page.goto(evilUrl);
    expect((await answer).status()).toBe(403);
    const keys = await server.api('/admin/v1/keys', { key: ADMIN_TOKEN });
    expect(keys.json.data.keys.map((k: { name: string }) => k.name)).not.toContain('stolen');

    // The same post from the dashboard's own page works, so the refusal is about the origin.
    await page.goto(`${server.baseUrl}/keys`);
    await page.getByLabel(/Name/).fill('mine');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByTestId('new-key').count()).toBe(1);
    evil.close();
    await context.close();
  });

  it('keeps the first page under 100 KB of script and style', async () => {
    const page = await browser.newPage();
    let bytes = 0;
    page.on('response', async (res) => {
      if (/\.(css|js)(\?|$)/.test(new URL(res.url()).pathname + new URL(res.url()).search))
        bytes += (await res.body()).length;
    });
    await page.goto(`${server.baseUrl}/sign-in`, { waitUntil: 'networkidle' });
    expect(bytes).toBeGreaterThan(1000); // the stylesheet and the script were counted
    expect(bytes).toBeLessThan(100 * 1024);
    await page.close();
  });

  it(
    'stays on this origin after signing in, whatever `next` a link to the sign-in page carries',
    { timeout: 120_000 },
    async () => {
      // The public internet, faked: a proxy that answers every request with its own page, for
      // every host but the dashboard's.
      const evil = http.createServer((_req, res) => res.end('<h1>evil</h1>'));
      await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
      const context = await browser.newContext({
        proxy: { server: `http://127.0.0.1:${(evil.address() as AddressInfo).port}`, bypass: '127.0.0.1' },
      });
      const page = await context.newPage();
      const own = new URL(server.baseUrl).origin;
      const signIn = async (next: string) => {
        await page.goto(`${server.baseUrl}/sign-in?next=${next}`);
        await page.getByLabel('Name').fill('alice');
        await page.getByLabel('Password').fill('correct horse battery');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL((url) => url.hostname === 'evil.example' || url.pathname !== '/sign-in');
        return new URL(page.url());
      };
      await signIn('');
      for (const next of [
        '/%09/evil.example/x',
        '/%5Cevil.example/x',
        '/%5C%09%5Cevil.example/x',
        '/.//evil.example/x',
        'https://evil.example/x',
        '/%0A/evil.example/x',
      ]) {
        // Signed in, such a link (in a mail, say) sends the browser on at once: to this site.
        await page.goto(`${server.baseUrl}/sign-in?next=${next}`);
        expect(new URL(page.url()).origin, next).toBe(own);
        expect(new URL(page.url()).pathname, next).toBe('/mail');
        // Signed out, the person signs in on the page it opens, and lands on this site too.
        await context.clearCookies();
        const landed = await signIn(next);
        expect(landed.origin, next).toBe(own);
        expect(landed.pathname, next).toBe('/mail');
      }
      // A page of this site is where the person goes.
      await context.clearCookies();
      expect((await signIn('/keys')).pathname).toBe('/keys');
      await context.close();
      evil.close();
    },
  );

  // Last: the failures it counts hold for its client address (127.0.0.1) and for alice for five minutes.
  it('refuses a wrong password, and the fifth quick retry is throttled with 429', async () => {
    const page = await browser.newPage();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.goto(`${server.baseUrl}/sign-in`);
      await page.getByLabel('Name').fill('alice');
      await page.getByLabel('Password').fill(`wrong password ${i}`);
      const answer = page.waitForResponse(
        (r) => r.url().endsWith('/sign-in') && r.request().method() === 'POST',
      );
      await page.getByRole('button', { name: 'Sign in' }).click();
      statuses.push((await answer).status());
      await page.waitForLoadState();
    }
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    expect(await page.getByRole('alert').textContent()).toMatch(
      /too many failed sign-ins.*try again in 5 minute/i,
    );
    // Throttled means the right password is refused too until the window ends.
    await page.getByLabel('Name').fill('alice');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
    expect(page.url()).toMatch(/\/sign-in$/);
    await page.close();
  });

  /** A new one-time link for default (the first-start one is spent by the first test). */
  async function freshLinkServer(): Promise<TestServer> {
    const { createSignInLink } = await import('../../src/mailbox/operations/sign-in.js');
    const { token } = await createSignInLink(server.mailroom.deps, 'default');
    return {
      ...server,
      baseUrl: server.baseUrl,
      mailroom: {
        ...server.mailroom,
        bootstrap: { ...server.mailroom.bootstrap!, signInLink: `${server.baseUrl}/sign-in/link/${token}` },
      },
    } as TestServer;
  }
});
