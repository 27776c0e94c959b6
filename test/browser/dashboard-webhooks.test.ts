// Engines: SQLite only: the dashboard's webhook pages in Chromium (over the verbs webhooks tests on both engines).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { checkPage, signInWithLink } from '../helpers/dashboard.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';

interface Held {
  headers: http.IncomingHttpHeaders;
  body: string;
  answer(status: number, body: string): void;
}

/** A webhook endpoint that holds each request until the test answers it. */
class HeldEndpoint {
  readonly requests: Held[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      this.requests.push({
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        answer: (status, body) => res.writeHead(status, { 'content-type': 'text/plain' }).end(body),
      }),
    );
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/mail`;
  }
  async nth(n: number): Promise<Held> {
    return await eventually(() => this.requests[n - 1], 20_000);
  }
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe("a webhook's deliveries in the dashboard", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let endpoint: HeldEndpoint;

  beforeAll(async () => {
    [server, browser, endpoint] = await Promise.all([
      startServer(),
      launchBrowser(),
      new HeldEndpoint().start(),
    ]);
    ({ context, page } = await signInWithLink(browser, server));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    await endpoint?.close();
  });

  /** Adds a webhook through the form; answers its secret, shown once. */
  const addWebhook = async (url: string) => {
    await page.goto(`${server.baseUrl}/webhooks`);
    await page.getByLabel('URL').fill(url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    return (await page.locator('#webhook-secret').textContent())!.trim();
  };
  const sendTestEvent = async () => {
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.waitForURL(/done=webhook-test/);
  };
  const openAttempt = async () => {
    await page.getByRole('link', { name: /webhook\.test attempt \d+: request and response$/ }).click();
    await page.waitForURL(/\/attempts\/\d+$/);
  };
  const headerValue = async (name: string) =>
    (await page.locator('table.request-headers tr', { hasText: name }).locator('td').textContent())?.trim();

  it('shows the test delivery once it is attempted, without a reload, and opens its request and response', async () => {
    const secret = await addWebhook(endpoint.url);
    await sendTestEvent();
    // The endpoint holds the request: the page shows the delivery on its way.
    const request = await endpoint.nth(1);
    expect(await page.locator('#deliveries tr.waiting').textContent()).toMatch(/webhook\.test.*Sending…/);
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    const answer = `{"accepted":true,"note":"${'x'.repeat(4000)}","end":"TAIL"}`;
    request.answer(202, answer);

    await page.getByRole('link', { name: /webhook\.test attempt/ }).waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(await page.locator('#deliveries tr.waiting').count()).toBe(0);
    expect(await page.locator('#deliveries tbody').textContent()).toMatch(/webhook\.test\s*202/);
    await checkPage(page, 'webhook-deliveries');

    await openAttempt();
    expect(await page.locator('.exchange code').first().textContent()).toBe(`POST ${endpoint.url}`);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type'])
      expect(await headerValue(name), name).toBe(request.headers[name]);
    const sent = JSON.parse(request.body);
    expect(sent.type).toBe('webhook.test');
    expect(JSON.parse((await page.getByLabel('Request body').textContent())!)).toEqual(sent);
    expect(await page.locator('.headers').textContent()).toMatch(/202\s*in \d+ ms/);
    const shown = (await page.getByLabel('Response body').textContent())!;
    expect(answer.startsWith(shown)).toBe(true);
    expect(shown.length).toBe(2048);
    expect(await page.locator('#response-title ~ p').first().textContent()).toBe(
      `The first 2.0 KB of ${(answer.length / 1024).toFixed(1)} KB.`,
    );
    expect(await page.content()).not.toContain(secret);
    await checkPage(page, 'webhook-attempt');
  });

  it("shows a failed attempt's status, error and body", async () => {
    await addWebhook(endpoint.url);
    await sendTestEvent();
    (await endpoint.nth(2)).answer(500, 'database down\u0000 try later');
    await page.getByRole('link', { name: /webhook\.test attempt/ }).waitFor({ timeout: 20_000 });
    await openAttempt();
    expect(await page.locator('.headers').textContent()).toMatch(/500\s*in \d+ ms\s*HTTP 500/);
    expect(await page.getByLabel('Response body').textContent()).toBe('database down\uFFFD try later');
  });

  it('says why an endpoint gave no answer', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/gone`;
    await new Promise((resolve) => closed.close(resolve));
    await addWebhook(url);
    await sendTestEvent();
    await page.getByRole('link', { name: /webhook\.test attempt/ }).waitFor({ timeout: 20_000 });
    await openAttempt();
    expect(await page.locator('.headers').textContent()).toMatch(/no answer.*ECONNREFUSED/);
    expect(await page.locator('#response-title + p').textContent()).toMatch(/^No answer: .*ECONNREFUSED/);
  });
});
