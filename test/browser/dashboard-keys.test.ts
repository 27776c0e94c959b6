// Engines: SQLite only: the dashboard's key form in Chromium; the reach it stores is a verb rule tested on both engines (test/mailbox/key-reach.test.ts).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addLocalInbox } from '../../src/mailbox/operations/admin.js';
import { launchBrowser } from '../helpers/browser.js';
import { checkPage, signInWithLink } from '../helpers/dashboard.js';
import type { TestServer } from '../helpers/server.js';
import { startServer } from '../helpers/server.js';

describe("the dashboard's key form: which inboxes and what a key may do", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const other = 'other@mailroom.test';

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer({ ingestThread: false, parseThreads: 0 }),
      launchBrowser(),
    ]);
    const owner = (await server.api('/me')).json.data.user.id as number;
    await addLocalInbox(server.mailroom.deps, other, owner);
    ({ context, page } = await signInWithLink(browser, server));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('makes a key for one inbox that may only read; the API refuses it the rest, and the list shows its reach', async () => {
    await page.goto(`${server.baseUrl}/keys`);
    await checkPage(page, 'keys-form');
    await page.getByLabel(/Name/).fill('reader');
    await page.getByLabel('Only the inboxes ticked:').check();
    await page.getByLabel(server.inbox).check();
    for (const permission of ['organise', 'send', 'manage'])
      await page.getByRole('checkbox', { name: new RegExp(`${permission} \\(`) }).uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    expect(key).toMatch(/^mr_live_/);

    expect((await server.api(`/emails?account=${server.inbox}`, { key })).status).toBe(200);
    const send = await server.api('/emails/send', {
      key,
      body: { from: server.inbox, to: [other], subject: 'no', text: 'no' },
    });
    expect(send.status).toBe(403);
    expect(send.json.error.message).toContain('lacks the send permission');
    const elsewhere = await server.api(`/emails?account=${other}`, { key });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.json.error.message).toContain(other);

    await page.goto(`${server.baseUrl}/keys`);
    const row = page.getByRole('row', { name: /reader/ });
    expect(await row.getByRole('cell').nth(2).textContent()).toBe(server.inbox);
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('read');
    await checkPage(page, 'keys-list');
  });

  it('explains a key asked with no permission at all, and makes none', async () => {
    await page.goto(`${server.baseUrl}/keys`);
    await page.getByLabel(/Name/).fill('nothing');
    for (const permission of ['read', 'organise', 'send', 'manage'])
      await page.getByRole('checkbox', { name: new RegExp(`${permission} \\(`) }).uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/at least one permission/);
    expect(await page.getByTestId('new-key').count()).toBe(0);
  });

  it('keeps what was typed when it refuses a key, so only the mistake needs mending', async () => {
    await page.goto(`${server.baseUrl}/keys`);
    await page.getByLabel(/Name/).fill('narrow one');
    await page.getByLabel('Only the inboxes ticked:').check();
    await page.getByLabel(other).check();
    for (const permission of ['read', 'organise', 'send', 'manage'])
      await page.getByRole('checkbox', { name: new RegExp(`${permission} \\(`) }).uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/at least one permission/);
    expect(await page.getByLabel(/Name/).inputValue()).toBe('narrow one');
    expect(await page.getByLabel('Only the inboxes ticked:').isChecked()).toBe(true);
    expect(await page.getByLabel(other).isChecked()).toBe(true);
    expect(await page.getByLabel(server.inbox).isChecked()).toBe(false);

    await page.getByRole('checkbox', { name: /read \(/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.getByTestId('new-key').textContent()).toMatch(/mr_live_/);
    const row = page.getByRole('row', { name: /narrow one/ });
    expect(await row.getByRole('cell').nth(2).textContent()).toBe(other);
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('read');
  });
});
