// Engines: SQLite only: the dashboard's Activity page in Chromium; the records it shows are tested on both engines in test/e2e/audit-trail.test.ts
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { checkPage, signInWithLink } from '../helpers/dashboard.js';
import type { TestServer } from '../helpers/server.js';
import { startServer } from '../helpers/server.js';

describe("the dashboard's Activity page: the audit trail, filtered", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let sentRequest: string;
  let refusedRequest: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer({ ingestThread: false, parseThreads: 0 }),
      launchBrowser(),
    ]);
    const sent = await server.api('/emails/send', {
      body: { from: server.inbox, to: ['someone@example.com'], subject: 'Activity subject', text: 'hi' },
    });
    expect(sent.status, sent.text).toBe(200);
    sentRequest = sent.headers.get('x-request-id')!;
    const refused = await server.api('/labels', { body: { name: '' } });
    expect(refused.status).toBe(400);
    refusedRequest = refused.headers.get('x-request-id')!;
    ({ context, page } = await signInWithLink(browser, server));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('is in the navigation and lists what the keys and the person did, newest first', async () => {
    await page.goto(`${server.baseUrl}/mail`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(/\/activity$/);
    await checkPage(page, 'activity');
    const sendRow = page.getByRole('row', { name: new RegExp(sentRequest) });
    expect(await sendRow.getByRole('cell').nth(3).textContent()).toBe('email.send');
    expect(await sendRow.getByRole('cell').nth(4).textContent()).toBe(server.inbox);
    expect(await sendRow.getByRole('cell').nth(6).textContent()).toBe('ok');
    const refusedRow = page.getByRole('row', { name: new RegExp(refusedRequest) });
    expect(await refusedRow.getByRole('cell').nth(6).textContent()).toBe('validation_error');
    expect(await page.content()).not.toContain('Activity subject');
  });

  it('filters by outcome, action, inbox and key', async () => {
    await page.goto(`${server.baseUrl}/activity`);
    await page.getByLabel('Outcome', { exact: true }).selectOption('validation_error');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/outcome=validation_error/);
    expect(await page.getByRole('row', { name: new RegExp(refusedRequest) }).count()).toBe(1);
    expect(await page.getByRole('row', { name: new RegExp(sentRequest) }).count()).toBe(0);

    await page.getByLabel('Outcome', { exact: true }).selectOption('');
    await page.getByLabel('Action', { exact: true }).selectOption('email.send');
    await page.getByLabel('Inbox', { exact: true }).selectOption(server.inbox);
    await page.getByLabel('Key', { exact: true }).selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/action=email.send/);
    expect(await page.getByRole('row', { name: new RegExp(sentRequest) }).count()).toBe(1);
    expect(await page.getByRole('row', { name: new RegExp(refusedRequest) }).count()).toBe(0);
    await checkPage(page, 'activity-filtered');

    await page.getByLabel('Action', { exact: true }).selectOption('key.revoke');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/action=key.revoke/);
    expect(await page.getByText('Nothing recorded that matches these filters').count()).toBe(1);
  });
});
