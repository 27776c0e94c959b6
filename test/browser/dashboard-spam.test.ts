// Engines: SQLite only: the dashboard's reader in Chromium, a door.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { checkPage, signInWithLink } from '../helpers/dashboard.js';
import { GTUBE_ADD_HEADER, startRspamd } from '../helpers/rspamd.js';
import type { Rspamd } from '../helpers/rspamd.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';

describe('mail rspamd filed into Spam, in the reader', () => {
  let rspamd: Rspamd;
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    rspamd = await startRspamd();
    [server, browser] = await Promise.all([startServer({ rspamdUrl: rspamd.url }), launchBrowser()]);
    ({ context, page } = await signInWithLink(browser, server));
  }, 240_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    await rspamd?.stop();
  });

  const folderOf = async (subject: string) => {
    for (const folder of ['INBOX', 'Spam']) {
      const list = await server.api(`/emails?account=${server.inbox}&folder=${folder}`);
      if (list.json.data.emails.some((e: { subject: string }) => e.subject === subject)) return folder;
    }
    return null;
  };

  it('shows the spam score, action and rules, and "Not spam" moves the message to INBOX', async () => {
    await server.sendMail({
      from: 'promo@example.com',
      to: server.inbox,
      subject: 'Cheap watches',
      text: `Best prices.\n${GTUBE_ADD_HEADER}`,
    });
    await eventually(async () => (await folderOf('Cheap watches')) === 'Spam');
    await page.goto(`${server.baseUrl}/mail?account=${encodeURIComponent(server.inbox)}&folder=Spam`);
    await page.getByRole('link', { name: /Cheap watches/ }).click();
    await page.waitForURL(/\/mail\/message\?/);
    const verdict = page.locator('.spam-verdict');
    expect(await verdict.locator('.verdict').textContent()).toBe('add header');
    expect(await verdict.locator('.spam-score').textContent()).toMatch(/^score [\d.]+ of 15$/);
    expect(await verdict.getByRole('list', { name: 'Spam rules that matched' }).textContent()).toContain(
      'GTUBE',
    );
    await checkPage(page, 'reader-spam');

    await page.getByRole('button', { name: 'Not spam' }).click();
    await page.waitForURL(/done=moved/);
    expect(new URL(page.url()).searchParams.get('folder')).toBe('INBOX');
    expect(await page.getByRole('link', { name: /Cheap watches/ }).count()).toBe(1);
    expect(await folderOf('Cheap watches')).toBe('INBOX');

    // Out of Spam the reader offers no "Not spam", and still shows the verdict it arrived with.
    await page.getByRole('link', { name: /Cheap watches/ }).click();
    await page.waitForURL(/\/mail\/message\?/);
    expect(await page.getByRole('button', { name: 'Not spam' }).count()).toBe(0);
    expect(await page.locator('.spam-verdict .verdict').textContent()).toBe('add header');
  });
});
