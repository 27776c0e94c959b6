import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshotWidths, seriousAccessibilityViolations } from './browser.js';
import type { TestServer } from './server.js';

/** A new browser context signed in with the server's one-time first-start link. */
export async function signInWithLink(
  browser: Browser,
  server: TestServer,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.mailroom.bootstrap!.signInLink);
  await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
  await page.waitForURL(/\/mail$/);
  return { context, page };
}

/** A new context signed in with a name and password through the sign-in form. */
export async function signInWithPassword(
  browser: Browser,
  server: TestServer,
  name: string,
  password: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.baseUrl}/sign-in`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/mail/);
  return { context, page };
}

/** Checks the page with axe (no serious or critical problem) and writes its screenshots at both widths. */
export async function checkPage(page: Page, name: string): Promise<void> {
  expect(await seriousAccessibilityViolations(page), `accessibility of ${name}`).toEqual([]);
  await screenshotWidths(page, `dashboard-${name}`);
}
