// Engines: SQLite only: the dashboard's lists and suppressions pages in Chromium (over the verbs test/mailbox/address-lists.test.ts runs on both engines).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { checkPage, signInWithLink } from '../helpers/dashboard.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';

describe('allow and block lists and suppressions in the dashboard', () => {
  let capture: CaptureServer;
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    capture = await startCaptureServer();
    [server, browser] = await Promise.all([
      startServer({ outbound: 'relay', relayUrl: capture.url }),
      launchBrowser(),
    ]);
    ({ context, page } = await signInWithLink(browser, server));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    await capture?.close();
  });

  const entriesOf = async (list: string, account?: string) =>
    (await server.api(`/lists/${list}${account ? `?account=${account}` : ''}`)).json.data.entries;

  it("adds and removes entries of an inbox's lists, and says in plain words what is not an entry", async () => {
    await page.goto(`${server.baseUrl}/inboxes`);
    await page.getByRole('link', { name: `Lists of ${server.inbox}` }).click();
    await page.waitForURL(/\/lists$/);
    const receiving = page.getByRole('region', { name: 'Receiving' });
    await receiving.getByLabel('Address or domain').fill('Pest.Example');
    await receiving.getByLabel('Reason').fill('newsletters');
    await receiving.getByRole('button', { name: 'Add to receiving lists' }).click();
    await page.waitForURL(/done=list-added/);
    expect(await receiving.getByRole('table', { name: 'Refuses mail from' }).textContent()).toContain(
      'pest.example',
    );
    expect(await entriesOf('receive/block', server.inbox)).toEqual([
      expect.objectContaining({ entry: 'pest.example', account: server.inbox, reason: 'newsletters' }),
    ]);
    await checkPage(page, 'inbox-lists');

    const sending = page.getByRole('region', { name: 'Sending' });
    await sending.getByLabel('Address or domain').fill('not an address');
    await sending.getByRole('button', { name: 'Add to sending lists' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('alert').textContent()).toMatch(/neither an address .* nor a domain/);

    await page
      .getByRole('region', { name: 'Receiving' })
      .getByRole('button', { name: 'Remove pest.example from Refuses mail from' })
      .click();
    await page.waitForURL(/done=list-removed/);
    expect(await entriesOf('receive/block', server.inbox)).toEqual([]);
  });

  it('keeps lists for all inboxes on their own page', async () => {
    await page.goto(`${server.baseUrl}/lists`);
    const sending = page.getByRole('region', { name: 'Sending' });
    await sending.getByLabel('Address or domain').fill('partner.example');
    await sending.getByLabel('May send to').check();
    await sending.getByRole('button', { name: 'Add to sending lists' }).click();
    await page.waitForURL(/\/lists\?done=list-added/);
    expect(await entriesOf('send/allow')).toEqual([
      expect.objectContaining({ entry: 'partner.example', account: null }),
    ]);
    await checkPage(page, 'lists');
    await server.api('/lists/send/allow/partner.example', { method: 'DELETE' });
  });

  it('lists the addresses a 5xx suppressed and lifts one', async () => {
    capture.respond('gone@example.com', 550);
    const sent = await server.api('/emails/send', {
      method: 'POST',
      body: { from: server.inbox, to: 'gone@example.com', subject: 'hello', text: 'hi' },
    });
    expect(sent.status).toBe(200);
    await eventually(async () => (await server.api('/suppressions')).json.data?.suppressions.length > 0);

    await page.goto(`${server.baseUrl}/suppressions`);
    expect(await page.getByRole('table').textContent()).toMatch(/gone@example\.com.*bounced/);
    await checkPage(page, 'suppressions');
    await page.getByRole('button', { name: 'Lift the suppression of gone@example.com' }).click();
    await page.waitForURL(/done=suppression-lifted/);
    expect(await page.getByText('No address is suppressed.').count()).toBe(1);
    expect((await server.api('/suppressions')).json.data.suppressions).toEqual([]);
  });
});
