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

/** A dashboard session over plain HTTP: form POSTs as a browser on the same site sends them. */
export interface FormSession {
  /** POSTs `fields` (and the session's CSRF token); the answer is not followed. */
  post(pathname: string, fields: Record<string, string>): Promise<FormAnswer>;
}

export interface FormAnswer {
  status: number;
  location: string | null;
  html: string;
  /** The X-Request-Id the answer carried. */
  requestId: string | null;
}

/** Signs in with the server's one-time first-start link, over HTTP alone (no browser). */
export async function signInOverHttp(server: TestServer): Promise<FormSession> {
  const base = server.baseUrl;
  const send = (pathname: string, fields: Record<string, string>, cookie?: string) =>
    fetch(`${base}${pathname}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: base,
        ...(cookie ? { cookie } : {}),
      },
      body: new URLSearchParams(fields),
    });
  const token = new URL(server.mailroom.bootstrap!.signInLink).pathname.split('/').pop()!;
  const signedIn = await send('/sign-in/link', { token });
  const cookie = /mailroom_session=[^;]+/.exec(signedIn.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new Error(`signing in with the first-start link answered ${signedIn.status}`);
  const page = await (await fetch(`${base}/inboxes`, { headers: { cookie } })).text();
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(page)?.[1];
  if (!csrf) throw new Error('no CSRF token on the Inboxes page');
  return {
    async post(pathname, fields) {
      const res = await send(pathname, { ...fields, _csrf: csrf }, cookie);
      return {
        status: res.status,
        location: res.headers.get('location'),
        html: await res.text(),
        requestId: res.headers.get('x-request-id'),
      };
    },
  };
}
