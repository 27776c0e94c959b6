import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fetchWithTimeout, PROXY_TIMEOUT_MS } from '../../src/cli/long-fetch.js';
import { WAIT_MAX_SECONDS } from '../../src/mailbox/events/wait-for-email.js';

// A server that answers like /mcp during a wait_for_email: the headers come only when the wait ends.
let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer((_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), 1500);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

it("gives up on headers after its own timeout, not Node fetch's 300 s", async () => {
  await expect(fetchWithTimeout(300)(url, { method: 'POST', body: '{}' })).rejects.toThrow();
  const answer = await fetchWithTimeout(10_000)(url, { method: 'POST', body: '{}' });
  expect(await answer.json()).toEqual({ ok: true });
});

it('lets the stdio proxy outwait the longest wait_for_email', () => {
  expect(PROXY_TIMEOUT_MS).toBeGreaterThan(WAIT_MAX_SECONDS * 1000);
});
