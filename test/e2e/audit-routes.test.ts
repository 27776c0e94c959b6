// Engines: SQLite only: which action each route of the HTTP doors declares and records is a door's own behaviour; the records' storage is tested on both engines in test/e2e/audit-trail.test.ts
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_FIELD } from '../../src/http/route-audit.js';
import type { TestServer } from '../helpers/server.js';
import { startServer } from '../helpers/server.js';

const TOKEN = 'admin-token-for-audit-routes-0123456789';

interface Operation {
  [AUDIT_FIELD]?: { action: string };
  requestBody?: unknown;
}
type Document = { paths: Record<string, Record<string, Operation>> };

describe('every state-changing route is recorded in the audit trail (contract 15)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ adminToken: TOKEN, ingestThread: false, parseThreads: 0 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Every record whose request id is `requestId`, from GET /api/v1/audit or the admin API. */
  async function recordsOf(requestId: string, admin = false) {
    const res = admin
      ? await server.api('/admin/v1/audit?limit=100', { key: TOKEN })
      : await server.api('/audit?limit=100');
    expect(res.status, res.text).toBe(200);
    return (res.json.data.records as { requestId: string }[]).filter((r) => r.requestId === requestId);
  }

  async function walk(prefix: string, key: string, admin: boolean): Promise<string[]> {
    const doc = (await server.api(`${prefix}/openapi.json`, { key })).json as Document;
    const walked: string[] = [];
    let n = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (method === 'get') continue;
        const action = operation[AUDIT_FIELD]?.action;
        expect(action, `${method} ${path} declares no audit action`).toMatch(/^[a-z_]+\.[a-z_]+$/);
        const requestId = `walk-${admin ? 'admin' : 'api'}-${(n += 1)}`;
        const concrete = path.replace(/\{[^}]+\}/g, 'nosuch');
        const res = await server.api(`${prefix}${concrete}?account=${server.inbox}`, {
          method: method.toUpperCase(),
          key,
          headers: { 'x-request-id': requestId },
          ...(operation.requestBody ? { body: {} } : {}),
        });
        expect(res.headers.get('x-request-id')).toBe(requestId);
        const outcome = res.status < 400 ? 'ok' : res.json.error.code;
        const records = await recordsOf(requestId, admin);
        expect(records, `${method} ${path} (${res.status})`).toEqual([
          expect.objectContaining({
            action,
            outcome,
            door: admin ? 'admin' : 'api',
            actor: admin ? { kind: 'admin', id: null } : expect.objectContaining({ kind: 'key' }),
          }),
        ]);
        walked.push(`${method} ${path}`);
      }
    }
    return walked;
  }

  it('records every non-GET operation of the API with its declared action and its outcome', async () => {
    const walked = await walk('/api/v1', server.key, false);
    expect(walked).toContain('post /emails/send');
    expect(walked.length).toBeGreaterThan(25);
  });

  it('records every non-GET operation of the admin API', async () => {
    const walked = await walk('/admin/v1', TOKEN, true);
    expect(walked).toContain('post /keys');
    expect(walked.length).toBeGreaterThanOrEqual(8);
  });
});
