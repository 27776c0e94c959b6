// Engines: SQLite only: an event stream opened from a browser page, a door rule.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/**
 * The page a web app would serve from its own origin: it asks Mailroom for a stream token with
 * its key (a cross-origin POST with Authorization, so the browser sends a CORS preflight first),
 * then opens an EventSource with the token, which cannot carry a header.
 */
const PAGE = `<!doctype html><html lang="en"><title>inbox watcher</title><script>
window.received = [];
window.watch = async (api, key, account) => {
  const res = await fetch(api + '/events/token', {
    method: 'POST',
    headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ account }),
  });
  const { data } = await res.json();
  const limit = res.headers.get('RateLimit-Limit');
  const source = new EventSource(api + '/events?token=' + encodeURIComponent(data.token));
  source.addEventListener('email.received', (e) => window.received.push(JSON.parse(e.data)));
  await new Promise((resolve, reject) => {
    source.onopen = resolve;
    source.onerror = () => reject(new Error('EventSource failed'));
  });
  return { limit };
};
window.tryToken = (api, key) =>
  fetch(api + '/events/token', { method: 'POST', headers: { Authorization: 'Bearer ' + key } }).then(
    (r) => 'answered ' + r.status,
    (e) => 'blocked: ' + e.message,
  );
</script><main>watching</main></html>`;

interface PageApi {
  received: { type: string; data: { email: { subject: string } } }[];
  watch(api: string, key: string, account: string): Promise<{ limit: string | null }>;
  tryToken(api: string, key: string): Promise<string>;
}

describe('a web page on another origin', { timeout: 60_000 }, () => {
  let browser: Browser;
  let site: http.Server;
  let siteOrigin: string;
  let server: TestServer;

  beforeAll(async () => {
    site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    server = await startServer({ corsOrigins: [siteOrigin] });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => site.close(resolve));
  });

  const open = async (origin: string): Promise<Page> => {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    return page;
  };

  it('gets a stream token through a CORS preflight and receives an event on an EventSource', async () => {
    const page = await open(siteOrigin);
    const api = `${server.baseUrl}/api/v1`;
    const { limit } = await page
      .evaluate(
        ([a, k, acc]) => (globalThis as unknown as PageApi).watch(a!, k!, acc!),
        [api, server.key, server.inbox],
      )
      // The page's own stack names its URL, which the test runner cannot map: keep the message.
      .catch((error: Error) => Promise.reject(new Error(`the page failed: ${error.message.split('\n')[0]}`)));
    expect(limit).toBe('600'); // an exposed header the page can read
    await server.sendMail({
      from: 'alice@example.com',
      to: server.inbox,
      subject: 'Seen in a browser',
      text: 'hi',
    });
    await page.waitForFunction(() => (globalThis as unknown as PageApi).received.length > 0, undefined, {
      timeout: 20_000,
    });
    const received = await page.evaluate(() => (globalThis as unknown as PageApi).received);
    expect(received[0]).toMatchObject({
      type: 'email.received',
      data: { email: { subject: 'Seen in a browser' } },
    });
    await page.close();
  });

  it('is blocked from an origin that is not listed', async () => {
    // localhost and 127.0.0.1 are different origins to a browser.
    const page = await open(siteOrigin.replace('127.0.0.1', 'localhost'));
    const outcome = await page.evaluate(
      ([a, k]) => (globalThis as unknown as PageApi).tryToken(a!, k!),
      [`${server.baseUrl}/api/v1`, server.key],
    );
    expect(outcome).toMatch(/^blocked/);
    await page.close();
  });
});
