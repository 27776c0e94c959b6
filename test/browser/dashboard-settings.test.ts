// Engines: SQLite only: the dashboard in Chromium (over the settings verbs test/mailbox/send-limits.test.ts runs on both engines).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { checkPage, signInWithLink } from '../helpers/dashboard.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe("an inbox's settings page in the dashboard", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    ({ context, page } = await signInWithLink(browser, server));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });
  const settingsUrl = () => `${server.baseUrl}/inboxes/${encodeURIComponent(server.inbox)}/settings`;
  const apiSettings = async () => (await server.api(`/accounts/${server.inbox}/settings`)).json.data.settings;
  const send = (subject: string) =>
    server.api('/emails/send', {
      method: 'POST',
      body: { from: server.inbox, to: ['someone@example.com'], subject, text: 'hi' },
    });

  it('is reached from the inboxes page and shows the limits and what was sent', async () => {
    expect((await send('before')).status).toBe(200);
    await page.goto(`${server.baseUrl}/inboxes`);
    await page.getByRole('link', { name: `Settings of ${server.inbox}` }).click();
    await page.waitForURL(/\/settings$/);
    expect(await page.getByTestId('sent-hour').textContent()).toBe('1 of 500');
    expect(await page.getByTestId('sent-day').textContent()).toBe('1 of 2000');
    await checkPage(page, 'inbox-settings');
  });

  it('saves limits, pause and mode through the form, and the API answers with them', async () => {
    await page.goto(settingsUrl());
    await page.getByLabel(/Recipients per hour/).fill('2');
    await page.getByLabel(/Recipients per 24 hours/).fill('0');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/done=settings-saved/);
    expect(await apiSettings()).toMatchObject({ limits: { perHour: 2, perDay: 0 }, paused: false });
    expect(await page.getByTestId('sent-day').textContent()).toBe('1 (no limit)');

    await page.getByLabel(/Recipients per hour/).fill('lots');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('alert').first().textContent()).toMatch(/whole number of recipients/);
    expect((await apiSettings()).limits.perHour).toBe(2);

    await page.goto(settingsUrl());
    await page.getByLabel(/Pause sending/).check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/done=settings-saved/);
    expect((await apiSettings()).paused).toBe(true);
    expect(await page.getByTestId('send-held').textContent()).toMatch(/Sending is paused/);
    await checkPage(page, 'inbox-settings-paused');
  });

  it('says in plain words why a send from the dashboard was refused', async () => {
    await page.goto(`${server.baseUrl}/compose?account=${encodeURIComponent(server.inbox)}`);
    await page.locator('input[name="to"]').fill('someone@example.com');
    await page.locator('input[name="subject"]').fill('while paused');
    await page.locator('textarea[name="text"]').fill('hello');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('alert').first().textContent()).toMatch(
      new RegExp(`Not sent: sending from ${server.inbox} is paused`),
    );

    await page.goto(settingsUrl());
    await page.getByLabel(/Pause sending/).uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/done=settings-saved/);
    expect((await send('second')).status).toBe(200);
    await page.goto(`${server.baseUrl}/compose?account=${encodeURIComponent(server.inbox)}`);
    await page.locator('input[name="to"]').fill('someone@example.com');
    await page.locator('input[name="subject"]').fill('over the limit');
    await page.locator('textarea[name="text"]').fill('hello');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('alert').first().textContent()).toMatch(
      /Not sent: .* has reached its send limit/,
    );
    await page.goto(settingsUrl());
    expect(await page.getByTestId('send-held').textContent()).toMatch(/send limit is reached/);
  });
});
