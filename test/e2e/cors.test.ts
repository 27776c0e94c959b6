// Engines: SQLite only: CORS headers, an HTTP door rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const APP = 'http://app.example.test:8080';
const ADMIN_TOKEN = 'cors-test-admin-token-0123456789';

const preflight = (server: TestServer, path: string, origin: string) =>
  fetch(`${server.baseUrl}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });

describe('CORS on /api/v1 (MAILROOM_CORS_ORIGINS)', () => {
  let server: TestServer;
  let off: TestServer;
  beforeAll(async () => {
    server = await startServer({ corsOrigins: [APP], adminToken: ADMIN_TOKEN });
    off = await startServer();
  });
  afterAll(async () => {
    await server.stop();
    await off.stop();
  });

  it('answers a preflight from a listed origin before any key, naming the headers a client sends', async () => {
    const res = await preflight(server, '/api/v1/emails/send', APP);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase().split(',');
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']));
    expect(res.headers.get('access-control-allow-methods')).toContain('DELETE');
  });

  it('lets the page read answers, errors included, and the headers a client needs', async () => {
    const acc = `account=${encodeURIComponent(server.inbox)}`;
    const ok = await server.api(`/emails?${acc}`, { headers: { origin: APP } });
    expect(ok.headers.get('access-control-allow-origin')).toBe(APP);
    const exposed = ok.headers.get('access-control-expose-headers')!.split(',');
    expect(exposed).toEqual(
      expect.arrayContaining(['RateLimit-Remaining', 'Retry-After', 'X-Request-Id', 'WWW-Authenticate']),
    );
    const refused = await server.api(`/emails?${acc}`, { key: null, headers: { origin: APP } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('says nothing to other origins, on the admin API, or when no origin is set', async () => {
    const stranger = await preflight(server, '/api/v1/emails/send', 'http://evil.example.test');
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const admin = await preflight(server, '/admin/v1/users', APP);
    expect(admin.headers.get('access-control-allow-origin')).toBeNull();
    const adminGet = await server.api('/admin/v1/users', { key: ADMIN_TOKEN, headers: { origin: APP } });
    expect(adminGet.status).toBe(200);
    expect(adminGet.headers.get('access-control-allow-origin')).toBeNull();
    const byDefault = await preflight(off, '/api/v1/emails/send', APP);
    expect(byDefault.headers.get('access-control-allow-origin')).toBeNull();
    expect(
      (await off.api('/accounts', { headers: { origin: APP } })).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });

  it('allows any origin with *, then without credentials', async () => {
    const any = await startServer({ env: { MAILROOM_CORS_ORIGINS: '*' } });
    try {
      const res = await preflight(any, '/api/v1/accounts', 'http://anything.example.test');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    } finally {
      await any.stop();
    }
  });

  it('refuses origins a browser would never send, at start', () => {
    const load = (value: string) => () => loadConfig({}, { MAILROOM_CORS_ORIGINS: value });
    expect(load('https://app.example.com, http://localhost:5173')().corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(load('')().corsOrigins).toEqual([]);
    for (const bad of [
      'https://app.example.com/',
      'app.example.com',
      'https://a.example/path',
      '*, https://a.b',
    ]) {
      expect(load(bad), bad).toThrow(ConfigError);
      expect(load(bad), bad).toThrow(/MAILROOM_CORS_ORIGINS/);
    }
  });
});
