// Engines: SQLite only: the dashboard in Chromium (over the admin verbs admin-api tests on both engines).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { checkPage, signInWithLink, signInWithPassword } from '../helpers/dashboard.js';
import type { ImapWorld } from '../helpers/imap-setup.js';
import { ADMIN_TOKEN, startImapWorld } from '../helpers/imap-setup.js';
import { eventually } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

describe('keys, inboxes, webhooks and the admin pages in the dashboard', () => {
  let world: ImapWorld;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    // Dovecot is on 127.0.0.1: a user may connect it only with the setting on.
    [world, browser] = await Promise.all([
      startImapWorld('dash', { env: { MAILROOM_CONNECT_ALLOW_PRIVATE: 'true' } }),
      launchBrowser(),
    ]);
    ({ context, page } = await signInWithLink(browser, world.server));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await world?.stop();
  });
  const base = () => world.server.baseUrl;

  it('creates a key shown once with a curl line; the key works with the API until it is revoked', async () => {
    await page.goto(`${base()}/keys`);
    await page.getByLabel(/Name/).fill('support-agent');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    expect(key).toMatch(/^mr_live_/);
    expect(await page.locator('#new-key-curl').textContent()).toContain(`Bearer ${key}`);
    await checkPage(page, 'keys');

    const accounts = await world.server.api('/accounts', { key });
    expect(accounts.status).toBe(200);
    expect(accounts.json.data.accounts[0].address).toBe(world.server.inbox);

    await page.goto(`${base()}/keys`);
    expect(await page.content()).not.toContain(key); // shown once only
    expect(await page.locator('table').textContent()).toMatch(/support-agent/);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Revoke key support-agent' }).click();
    await page.waitForURL(/done=key-revoked/);
    expect((await world.server.api('/accounts', { key })).status).toBe(401);
  });

  it('connects a real Dovecot mailbox through the form, with a wrong password explained in plain words', async () => {
    await page.goto(`${base()}/inboxes`);
    const fill = async (password: string) => {
      await page.getByLabel('Address').fill(world.address);
      await page.getByLabel('IMAP server').fill(world.dovecot.url(world.user).replace(/:[^:@/]*@/, '@'));
      await page.getByLabel('IMAP password').fill(password);
      await page.getByLabel('SMTP server').fill(world.capture.url);
      await page.getByRole('button', { name: 'Connect mailbox' }).click();
      await page.waitForLoadState();
    };
    await fill('not-the-password');
    expect(await page.locator('#connect-error').textContent()).toMatch(/refused the login/);
    expect(await page.content()).not.toContain('not-the-password');

    await fill(world.password);
    await page.waitForURL(/done=inbox-connected/);
    await eventually(async () => {
      await page.reload();
      const row = page.getByRole('row', { name: new RegExp(world.address) });
      return (await row.textContent())?.includes('Up to date');
    }, 20_000);
    await checkPage(page, 'inboxes');
  });

  it('creates a webhook (secret shown once), sends a test event and shows the delivery in its log', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      await page.goto(`${base()}/webhooks`);
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByLabel('Description').fill('the support bot');
      await page.getByRole('button', { name: 'Add webhook' }).click();
      expect(await page.locator('#webhook-secret').textContent()).toMatch(/^whsec_/);
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.waitForURL(/done=webhook-test/);
      // The page shows the delivery once it is attempted (dashboard-webhooks.test.ts has the details).
      await page.getByRole('link', { name: /webhook\.test attempt/ }).waitFor({ timeout: 15_000 });
      const log = await page.locator('table.deliveries').textContent();
      expect(log).toContain('webhook.test');
      expect(log).toContain('200');
      expect(receiver.requests.some((r) => r.json?.type === 'webhook.test')).toBe(true);
      await checkPage(page, 'webhook');

      await page.getByRole('button', { name: 'Disable' }).click();
      await page.waitForURL(/done=webhook-disabled/);
      await page.goto(`${base()}/webhooks`);
      expect(await page.locator('.cards').textContent()).toMatch(/disabled/);
      await checkPage(page, 'webhooks');
    } finally {
      await receiver.close();
    }
  });

  it('shows admins the DNS records of each domain and the users; a user who is not an admin gets 404', async () => {
    await page.goto(`${base()}/domains`);
    expect(await page.locator('table.dns').first().textContent()).toMatch(/MX.*TXT.*v=spf1/s);
    await checkPage(page, 'domains');
    await page.goto(`${base()}/users`);
    await page.getByLabel('Name').fill('bob');
    await page.getByLabel(/Password/).fill('bobs password');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.waitForURL(/done=user-added/);
    await checkPage(page, 'users');

    const bob = await signInWithPassword(browser, world.server, 'bob', 'bobs password');
    expect(await bob.page.locator('.empty-page').textContent()).toMatch(/No inbox yet/);
    expect((await bob.page.goto(`${base()}/domains`))!.status()).toBe(404);
    expect((await bob.page.goto(`${base()}/users`))!.status()).toBe(404);
    await checkPage(bob.page, 'mail-empty');
    await bob.context.close();
    expect((await world.server.api('/admin/v1/users', { key: ADMIN_TOKEN })).json.data.users).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'bob', admin: false })]),
    );
  });

  it('gives an admin a one-time sign-in link for another user, which signs that user in once', async () => {
    await page.goto(`${base()}/users`);
    await page.getByLabel('Name').fill('carol');
    await page.getByLabel(/Password/).fill('carols password');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.waitForURL(/done=user-added/);
    await page.getByRole('button', { name: 'Sign-in link for carol' }).click();
    const link = (await page.getByTestId('sign-in-link').textContent())!.trim();
    expect(link).toMatch(/\/sign-in\/link\/\S+$/);
    expect(page.url()).not.toContain(link.split('/').pop()!);
    await checkPage(page, 'users-link');

    const carol = await browser.newContext();
    const tab = await carol.newPage();
    await tab.goto(link);
    await tab.getByRole('button', { name: 'Continue to the dashboard' }).click();
    await tab.waitForURL(/\/mail$/);
    expect(await tab.locator('header').textContent()).toContain('carol');
    // Spent: the same link signs no one in again.
    const again = await browser.newContext();
    const second = await again.newPage();
    await second.goto(link);
    await second.getByRole('button', { name: 'Continue to the dashboard' }).click();
    expect(await second.textContent('body')).toMatch(/already used or has expired/);
    await Promise.all([carol.close(), again.close()]);
  });
});
