import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** Every /api/v1 route that takes a JSON body (issue 11). */
const JSON_ROUTES: [method: string, path: string][] = [
  ['POST', '/emails/send'],
  ['POST', '/emails/1/reply'],
  ['POST', '/emails/1/forward'],
  ['POST', '/emails/drafts'],
  ['PUT', '/emails/drafts/1'],
  ['POST', '/emails/drafts/1/send'],
  ['PATCH', '/emails/1'],
  ['POST', '/emails/1/labels'],
  ['POST', '/labels'],
  ['PATCH', '/labels/lbl'],
  ['POST', '/folders'],
  ['POST', '/webhooks'],
  ['PATCH', '/webhooks/wh_1'],
];

describe('API precision (issue 11)', { timeout: 30_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server.stop());

  it('answers an empty JSON body with 400 invalid_json on every route that takes a body', async () => {
    for (const [method, path] of JSON_ROUTES) {
      const url = `${server.baseUrl}/api/v1${path}?account=${encodeURIComponent(server.inbox)}`;
      const res = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      });
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect({ route: `${method} ${path}`, status: res.status, code: json.error.code }).toEqual({
        route: `${method} ${path}`,
        status: 400,
        code: 'invalid_json',
      });
      expect(json.error.message).toMatch(/JSON/);
    }
  });
});
