// Engines: SQLite only: how the HTTP door writes numbers and dates, a door rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/mailbox/operations/admin.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

interface SchemaLike {
  $ref?: string;
  additionalProperties?: unknown;
}
interface OperationLike {
  requestBody?: { content?: Record<string, { schema?: SchemaLike }> };
}

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
  ['POST', '/lists/send/block'],
  ['PATCH', '/accounts/agent@mailroom.test/settings'],
];
/** Routes whose JSON body may also be left out (an empty body is no body, not invalid JSON). */
const OPTIONAL_BODY_ROUTES: [method: string, path: string][] = [['POST', '/events/token']];
/** A body that may be left out, on a route whose path names something that must exist first. */
const OPTIONAL_BODY_ON_A_THING: [method: string, path: string][] = [['POST', '/approvals/apr_none/reject']];

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

  it('takes no body where the body is optional, and still checks one that is given', async () => {
    for (const [method, path] of OPTIONAL_BODY_ROUTES) {
      const url = `${server.baseUrl}/api/v1${path}`;
      const authorization = `Bearer ${server.key}`;
      expect((await fetch(url, { method, headers: { authorization } })).status, `${method} ${path}`).toBe(
        200,
      );
      const headers = { authorization, 'content-type': 'application/json' };
      expect((await fetch(url, { method, headers, body: '{}' })).status, `${method} ${path}`).toBe(200);
      const wrong = await fetch(url, { method, headers, body: JSON.stringify({ acount: server.inbox }) });
      expect(wrong.status, `${method} ${path}`).toBe(400);
      // A body that says it is JSON must be JSON, as on every route.
      expect((await fetch(url, { method, headers })).status, `${method} ${path}`).toBe(400);
    }
    // The same checks, where a well-formed request then finds nothing by that id (404).
    const approver = (await createKey(server.mailroom.deps, 'default', { permissions: ['approve'] })).key;
    for (const [method, path] of OPTIONAL_BODY_ON_A_THING) {
      const url = `${server.baseUrl}/api/v1${path}`;
      const authorization = `Bearer ${approver}`;
      const headers = { authorization, 'content-type': 'application/json' };
      expect((await fetch(url, { method, headers: { authorization } })).status, `${method} ${path}`).toBe(
        404,
      );
      expect((await fetch(url, { method, headers, body: '{}' })).status, `${method} ${path}`).toBe(404);
      const wrong = await fetch(url, { method, headers, body: JSON.stringify({ reasn: 'no' }) });
      expect(wrong.status, `${method} ${path}`).toBe(400);
      expect((await fetch(url, { method, headers })).status, `${method} ${path}`).toBe(400);
    }
  });

  it('refuses an unknown body field, naming it and the field meant', async () => {
    const res = await server.api('/emails/send', {
      body: { from: server.inbox, to: 'a@example.com', subject: 'Hi', body: 'Hello' },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation_error');
    expect(res.json.error.details[0]).toEqual({
      path: 'body',
      message: 'unknown field "body"; did you mean "text"?',
    });
    expect(res.json.error.message).toMatch(/^body: unknown field "body"; did you mean "text"\?/);
    // The message would have gone out empty: that is said too.
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toEqual(['body', 'text', 'html']);
  });

  it('suggests by spelling and case style, names nested unknown fields, and stays quiet when nothing is close', async () => {
    const res = await server.api('/emails/send', {
      body: {
        from: server.inbox,
        to: 'a@example.com',
        subject: 'Hi',
        text: 'x',
        reply_to: 'b@example.com',
        subjct: 'typo',
        zzz: 1,
        attachments: [{ filename: 'a.txt', content: 'eA==', mimeType: 'text/plain' }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.details).toEqual(
      expect.arrayContaining([
        { path: 'reply_to', message: 'unknown field "reply_to"; did you mean "replyTo"?' },
        { path: 'subjct', message: 'unknown field "subjct"; did you mean "subject"?' },
        { path: 'zzz', message: 'unknown field "zzz"' },
        { path: 'attachments.0.mimeType', message: expect.stringMatching(/^unknown field "mimeType"/) },
      ]),
    );
    expect(res.json.error.details).toHaveLength(4);
  });

  it('refuses unknown fields on every kind of body (labels, webhooks, PATCH email)', async () => {
    const label = await server.api('/labels', { body: { name: 'X', colour: '#112233' } });
    expect(label.json.error.details).toEqual([
      { path: 'colour', message: 'unknown field "colour"; did you mean "color"?' },
    ]);
    const hook = await server.api('/webhooks', {
      body: { url: 'https://example.com/h', events: ['email.received'], event: 'x' },
    });
    expect(hook.json.error.details[0].path).toBe('event');
    const patch = await server.api(`/emails/1?account=${server.inbox}`, {
      method: 'PATCH',
      body: { action: 'read', flag: true },
    });
    expect(patch.status).toBe(400);
    expect(patch.json.error.details[0].path).toBe('flag');
  });

  it('refuses a send with neither text, html nor attachments, and a reply with empty text', async () => {
    const send = await server.api('/emails/send', {
      body: { from: server.inbox, to: server.inbox, subject: 'Nothing' },
    });
    expect(send.status).toBe(400);
    expect(send.json.error.details.map((d: { path: string }) => d.path)).toEqual(['text', 'html']);
    const withFile = await server.api('/emails/send', {
      body: {
        from: server.inbox,
        to: server.inbox,
        subject: 'Only a file',
        attachments: [{ filename: 'a.txt', content: 'eA==' }],
      },
    });
    expect(withFile.status).toBe(200);
    const uid = withFile.json.data.uid as number;
    const reply = await server.api(`/emails/${uid}/reply?account=${server.inbox}&folder=Sent`, {
      body: { text: '' },
    });
    expect(reply.status).toBe(400);
    expect(reply.json.error.details[0]).toEqual({
      path: 'text',
      message: 'a reply needs a non-empty text or html',
    });
  });

  it('says additionalProperties false on request bodies in the OpenAPI document', async () => {
    const doc = (await server.api('/api/v1/openapi.json', { key: null })).json;
    const bodies: [string, string][] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, OperationLike>>)) {
      for (const [method, op] of Object.entries(item)) {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        if (!schema) continue;
        const named: SchemaLike = schema.$ref
          ? doc.components.schemas[schema.$ref.split('/').pop()!]
          : schema;
        bodies.push([`${method} ${path}`, String(named.additionalProperties)]);
      }
    }
    expect(bodies).toHaveLength(
      JSON_ROUTES.length + OPTIONAL_BODY_ROUTES.length + OPTIONAL_BODY_ON_A_THING.length,
    );
    expect(bodies.filter(([, closed]) => closed !== 'false')).toEqual([]);
    expect(doc.components.schemas.AttachmentInput.additionalProperties).toBe(false);
  });

  it('says a missing field is required, and where it was looked for', async () => {
    const list = await server.api('/emails');
    expect(list.status).toBe(400);
    expect(list.json.error.details).toEqual([
      { path: 'account', message: 'account is required (in the query string)' },
    ]);
    const send = await server.api('/emails/send', { body: { from: server.inbox, subject: 's', text: 't' } });
    expect(send.json.error.details).toEqual([{ path: 'to', message: 'to is required (in the JSON body)' }]);
    const wrongType = await server.api('/labels', { body: { name: 42 } });
    expect(wrongType.json.error.details[0].message).toBe('name must be a string');
    const limit = await server.api(`/emails?account=${server.inbox}&limit=x`);
    expect(limit.json.error.details).toEqual([{ path: 'limit', message: 'limit must be a number' }]);
  });

  it('says a length or size limit in words: the limit and what was given', async () => {
    const body = { from: server.inbox, to: ['x@example.com'], subject: 's'.repeat(2001), text: 't' };
    const send = await server.api('/emails/send', { body });
    expect(send.json.error.details).toEqual([
      { path: 'subject', message: 'subject takes at most 2,000 characters; it has 2,001' },
    ]);
    const page = await server.api(`/emails?account=${server.inbox}&limit=0`);
    expect(page.json.error.details).toEqual([{ path: 'limit', message: 'limit must be at least 1' }]);
  });

  it('reports the problems of the path, the query and the body together in one 400', async () => {
    const res = await server.api('/emails/abc/reply?limit=x', { body: { txt: 'hi' } });
    expect(res.status).toBe(400);
    const paths = res.json.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['path.id', 'account', 'txt']));
    expect(res.json.error.message).toMatch(/and \d+ more: see details/);
  });

  describe('account in the query or the JSON body (contract 13)', () => {
    /** The routes that take `account` and a JSON body, each with a body that would succeed. */
    const accountRoutes = (uid: number, draft: number): [string, string, object][] => [
      ['POST', `/emails/${uid}/reply`, { text: 'ok' }],
      ['POST', `/emails/${uid}/forward`, { to: 'fwd@example.com' }],
      ['PATCH', `/emails/${uid}`, { action: 'flag' }],
      ['POST', `/emails/${uid}/labels`, { labels: ['Seen-it'] }],
      ['POST', '/folders', { name: `Folder-${uid}-${draft}` }],
      ['POST', '/emails/drafts', { text: 'draft' }],
      ['PUT', `/emails/drafts/${draft}`, { subject: 'changed' }],
      ['POST', `/emails/drafts/${draft}/send`, {}],
    ];

    async function fixtures() {
      const sent = await server.api('/emails/send', {
        body: { from: server.inbox, to: server.inbox, subject: 'Original', text: 'hello' },
      });
      const draft = await server.api('/emails/drafts', {
        body: { account: server.inbox, to: 'x@example.com', subject: 'D', text: 'd' },
      });
      return { uid: sent.json.data.uid as number, draft: draft.json.data.draft.uid as number };
    }

    it('refuses a query and a body account that differ, on every route that takes one, sending nothing', async () => {
      const other = await server.addUser('precision-other');
      const { uid, draft } = await fixtures();
      const sentBefore = (await server.api(`/emails?account=${server.inbox}&folder=Sent`)).json.data.emails
        .length;
      for (const [method, path, body] of accountRoutes(uid, draft)) {
        const res = await server.api(`${path}?account=${server.inbox}&folder=Sent`, {
          method,
          body: { ...body, account: other.inbox },
        });
        expect({ route: `${method} ${path}`, status: res.status }).toEqual({
          route: `${method} ${path}`,
          status: 400,
        });
        expect(res.json.error.details[0].path).toBe('account');
        expect(res.json.error.details[0].message).toMatch(/differ/);
      }
      const sentAfter = (await server.api(`/emails?account=${server.inbox}&folder=Sent`)).json.data.emails
        .length;
      expect(sentAfter).toBe(sentBefore);
    });

    it('takes account from the body alone, or the query alone, on every route that takes one', async () => {
      await server.api('/labels', { body: { name: 'Seen-it' } });
      for (const where of ['body', 'query'] as const) {
        const { uid, draft } = await fixtures();
        for (const [method, path, body] of accountRoutes(uid, draft)) {
          const folder = path.startsWith('/emails/') && !path.includes('drafts') ? 'folder=Sent' : '';
          const query = [where === 'query' ? `account=${server.inbox}` : '', folder]
            .filter(Boolean)
            .join('&');
          const res = await server.api(`${path}${query ? `?${query}` : ''}`, {
            method,
            body: where === 'body' ? { ...body, account: server.inbox } : body,
          });
          expect({ route: `${where} ${method} ${path}`, error: res.json.error }).toEqual({
            route: `${where} ${method} ${path}`,
            error: undefined,
          });
          expect([200, 201]).toContain(res.status);
        }
      }
    });

    it('says account is required in either place when it is in neither', async () => {
      const res = await server.api('/emails/1/reply', { body: { text: 'hi' } });
      expect(res.status).toBe(400);
      expect(res.json.error.details).toEqual([
        { path: 'account', message: 'account is required (in the query string or the JSON body)' },
      ]);
    });
  });

  describe('the smaller ones (item 6)', () => {
    it('serves /docs/ with a trailing slash as /docs', async () => {
      const res = await fetch(`${server.baseUrl}/docs/`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('/api/v1/openapi.json');
    });

    it('answers label=NoSuchLabel on a list with 404, as an unknown folder', async () => {
      const res = await server.api(`/emails?account=${server.inbox}&label=NoSuchLabel`);
      expect(res.status).toBe(404);
      expect(res.json.error.message).toContain('NoSuchLabel');
    });

    it('takes Junk as the name of the Spam folder', async () => {
      const sent = await server.api('/emails/send', {
        body: { from: server.inbox, to: server.inbox, subject: 'Junk test', text: 'x' },
      });
      const uid = sent.json.data.uid as number;
      const moved = await server.api(`/emails/${uid}?account=${server.inbox}`, {
        method: 'PATCH',
        body: { action: 'move', folder: 'Junk' },
      });
      expect(moved.status).toBe(200);
      expect(moved.json.data.email.folder).toBe('Spam');
      const listed = await server.api(`/emails?account=${server.inbox}&folder=junk`);
      expect(listed.json.data.emails.map((e: { uid: number }) => e.uid)).toContain(uid);
      const read = await server.api(`/emails/${uid}?account=${server.inbox}&folder=Junk`);
      expect(read.status).toBe(200);
    });

    it('refuses a draft PUT with nothing to change, as PATCH does', async () => {
      const draft = await server.api('/emails/drafts', { body: { account: server.inbox, text: 'd' } });
      const res = await server.api(`/emails/drafts/${draft.json.data.draft.uid}?account=${server.inbox}`, {
        method: 'PUT',
        body: {},
      });
      expect(res.status).toBe(400);
      expect(res.json.error.message).toMatch(/at least one field to change/);
    });

    it('honours folder on raw and attachment downloads', async () => {
      const sent = await server.api('/emails/send', {
        body: {
          from: server.inbox,
          to: 'someone@example.com',
          subject: 'With a file',
          text: 'x',
          attachments: [{ filename: 'a.txt', content: Buffer.from('hello').toString('base64') }],
        },
      });
      const uid = sent.json.data.uid as number;
      const acc = `account=${server.inbox}`;
      const email = await server.api(`/emails/${uid}?${acc}&folder=Sent`);
      const attachmentId = email.json.data.email.attachments[0].id as string;
      expect((await server.api(`/emails/${uid}/raw?${acc}&folder=Sent`)).status).toBe(200);
      expect((await server.api(`/emails/${uid}/raw?${acc}&folder=INBOX`)).status).toBe(404);
      const file = `/emails/${uid}/attachments/${attachmentId}?${acc}`;
      const inSent = await server.api(`${file}&folder=Sent`);
      expect(inSent.status).toBe(200);
      expect(inSent.text).toBe('hello');
      expect((await server.api(`${file}&folder=Trash`)).status).toBe(404);
      expect((await server.api(file)).status).toBe(200);
    });
  });

  it('takes __proto__ and constructor as folder names like any other (404, not 500)', async () => {
    const acc = `account=${server.inbox}`;
    for (const folder of ['__proto__', 'constructor', 'toString']) {
      const list = await server.api(`/emails?${acc}&folder=${folder}`);
      const read = await server.api(`/emails/1?${acc}&folder=${folder}`);
      expect([list.status, read.status, list.json.error.code]).toEqual([404, 404, 'not_found']);
    }
  });

  describe('a method the path does not take (405)', () => {
    it('answers 405 with Allow listing the methods the path takes, and the error envelope', async () => {
      const cases: [method: string, path: string, allow: string][] = [
        ['PUT', '/emails', 'DELETE, GET, HEAD'],
        ['DELETE', '/labels', 'GET, HEAD, POST'],
        ['POST', '/accounts', 'GET, HEAD'],
        ['GET', '/emails/drafts/1', 'DELETE, PUT'],
        ['PUT', '/webhooks/wh_1', 'DELETE, GET, HEAD, PATCH'],
      ];
      for (const [method, path, allow] of cases) {
        const res = await server.api(path, { method });
        expect({ route: `${method} ${path}`, status: res.status, allow: res.headers.get('allow') }).toEqual({
          route: `${method} ${path}`,
          status: 405,
          allow,
        });
        expect(res.json).toEqual({
          success: false,
          error: { code: 'method_not_allowed', message: expect.stringContaining(allow) },
        });
      }
      const health = await fetch(`${server.baseUrl}/healthz`, { method: 'POST' });
      expect([health.status, health.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    });

    it('keeps 404 for an unknown path, and 401 before 405 for a caller without a key', async () => {
      const unknown = await server.api('/nothing-here', { method: 'PUT' });
      expect([unknown.status, unknown.json.error.code, unknown.headers.get('allow')]).toEqual([
        404,
        'not_found',
        null,
      ]);
      const anonymous = await server.api('/emails', { method: 'PUT', key: null });
      expect(anonymous.status).toBe(401);
    });

    it('lists method_not_allowed among the error codes of the OpenAPI document', async () => {
      const doc = (await server.api('/openapi.json')).json;
      expect(doc.components.schemas.Error.properties.error.properties.code.enum).toContain(
        'method_not_allowed',
      );
    });
  });
});
