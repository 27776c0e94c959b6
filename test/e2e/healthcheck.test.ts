// Engines: SQLite only: the healthcheck command and route, a door rule.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { healthcheck } from '../helpers/cli.js';
import { startServer } from '../helpers/server.js';

const env = (port: number) => ({ MAILROOM_HOST: '127.0.0.1', MAILROOM_HTTP_PORT: String(port) });

// Each run starts a Node process that compiles TypeScript: allow a slow machine its time.
describe('the Docker healthcheck script', { timeout: 120_000 }, () => {
  it('is healthy against a running server and unhealthy once it has stopped', async () => {
    const server = await startServer();
    const port = server.mailroom.http.port;
    const live = await healthcheck(env(port));
    expect(live.code).toBe(0);
    expect(live.stdout).toBe(`http://127.0.0.1:${port}/readyz: 200 {"status":"ready"}\n`);

    await server.stop();
    const stopped = await healthcheck(env(port));
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toBe(`http://127.0.0.1:${port}/readyz: unreachable (ECONNREFUSED)\n`);
  });

  it('asks for readiness, not liveness: alive but not ready is unhealthy', async () => {
    // A server in the state /readyz exists for: the process answers, the service cannot.
    const starting = http.createServer((req, res) => {
      res.writeHead(req.url === '/readyz' ? 503 : 200, { 'content-type': 'application/json' });
      res.end(req.url === '/readyz' ? '{"status":"starting"}' : '{"status":"ok"}');
    });
    await new Promise<void>((resolve) => starting.listen(0, '127.0.0.1', resolve));
    try {
      const result = await healthcheck(env((starting.address() as AddressInfo).port));
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/\/readyz: 503 \{"status":"starting"\}\n$/);
    } finally {
      starting.close();
    }
  });

  it('says so when the settings give it no port to check', async () => {
    const result = await healthcheck({ MAILROOM_HTTP_PORT: '0' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('MAILROOM_HTTP_PORT is 0: no fixed port to check\n');
  });
});
