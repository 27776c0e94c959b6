import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthThrottle } from '../../src/http/middleware/auth-throttle.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const TOKEN = 'admin-token-for-tests-0123456789';
const WRONG = 'mr_live_not-a-key-at-all';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** A GET from a chosen loopback source address, so one test can be several clients. */
function getFrom(from: string, server: TestServer, path: string, bearer: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port: server.mailroom.http.port,
        localAddress: from,
        path,
        headers: { authorization: `Bearer ${bearer}` },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(body) }),
        );
      },
    );
    req.on('error', reject);
  });
}

describe('failed API-key and admin-token attempts slow a client down', { timeout: 60_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ adminToken: TOKEN });
  });
  afterAll(async () => server.stop());

  const accounts = (from: string, key: string) => getFrom(from, server, '/api/v1/accounts', key);

  it('answers 429 after 10 failures from one address, even to a valid key, and not to other addresses', async () => {
    for (let i = 1; i <= 10; i++) {
      const res = await accounts('127.0.0.2', WRONG);
      expect(res.status).toBe(401);
      expect(res.headers['ratelimit-limit']).toBe('10');
      expect(res.headers['ratelimit-remaining']).toBe(String(10 - i));
    }
    const blocked = await accounts('127.0.0.2', server.key);
    expect(blocked.status).toBe(429);
    expect(blocked.json.error.code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(blocked.headers['ratelimit-remaining']).toBe('0');
    expect(blocked.headers['ratelimit-reset']).toBe(blocked.headers['retry-after']);

    expect((await accounts('127.0.0.3', server.key)).status).toBe(200);
  });

  it("does not reset a count on a success, the address's own or another's", async () => {
    for (let i = 0; i < 9; i++) expect((await accounts('127.0.0.4', WRONG)).status).toBe(401);
    expect((await accounts('127.0.0.4', server.key)).status).toBe(200);
    expect((await accounts('127.0.0.5', server.key)).status).toBe(200);
    expect((await accounts('127.0.0.4', WRONG)).status).toBe(401);
    expect((await accounts('127.0.0.4', server.key)).status).toBe(429);
  });

  it('counts wrong admin tokens the same way, apart from API keys', async () => {
    for (let i = 0; i < 10; i++)
      expect((await getFrom('127.0.0.6', server, '/admin/v1/users', 'wrong-token-0123456789')).status).toBe(
        401,
      );
    const blocked = await getFrom('127.0.0.6', server, '/admin/v1/users', TOKEN);
    expect(blocked.status).toBe(429);
    expect(blocked.json.error.code).toBe('rate_limited');
    expect(blocked.headers['retry-after']).toBeDefined();
    // The API keys of that address have their own count.
    expect((await accounts('127.0.0.6', server.key)).status).toBe(200);
  });
});

describe('the failed-attempt window', () => {
  it('lets the address in again once Retry-After has passed', async () => {
    const server = await startServer({ authFailureLimit: 2, authFailureWindowMs: 500 });
    try {
      const accounts = (key: string) => getFrom('127.0.0.7', server, '/api/v1/accounts', key);
      expect((await accounts(WRONG)).status).toBe(401);
      expect((await accounts(WRONG)).status).toBe(401);
      const blocked = await accounts(server.key);
      expect(blocked.status).toBe(429);
      expect(blocked.headers['retry-after']).toBe('1');
      await eventually(async () => (await accounts(server.key)).status === 200);
    } finally {
      await server.stop();
    }
  });

  it('tracks a bounded number of addresses however many fail', () => {
    const throttle = new AuthThrottle(3, 60_000, 100);
    for (let i = 0; i < 5000; i++) throttle.fail(`10.0.${i >> 8}.${i & 255}`, 1000);
    expect(throttle.tracked).toBeLessThanOrEqual(100);
    // The newest addresses are the ones kept, with their counts.
    for (let i = 0; i < 2; i++) throttle.fail('10.0.19.135', 1000);
    expect(throttle.blockedFor('10.0.19.135', 1000)).toBe(60);
  });
});
