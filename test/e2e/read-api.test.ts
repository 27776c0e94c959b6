// Engines: SQLite only: the read routes as HTTP (headers, status codes, the service routes, the rate and body limits); what reading finds in the data is test/mailbox/read.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('the read API over HTTP', () => {
  let server: TestServer;
  let uid: number;
  const longText = `${'Lorem ipsum dolor sit amet. '.repeat(40)}THE END`;

  beforeAll(async () => {
    server = await startServer();
    await server.sendMail({
      from: 'Alice Example <alice@example.com>',
      to: server.inbox,
      cc: 'carol@example.com',
      replyTo: 'replies@example.com',
      subject: 'Quarterly report',
      text: longText,
      html: '<p>Lorem <b>ipsum</b></p>',
      attachments: [
        { filename: 'report.csv', content: 'a,b\n1,2\n', contentType: 'text/csv' },
        { filename: 'logo.png', content: Buffer.from('89504e47', 'hex'), cid: 'logo@x' },
      ],
    });
    uid = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails[0].uid;
  });
  afterAll(async () => server.stop());

  it('lists emails with text cut to 500 characters, no html, and attachment metadata', async () => {
    const res = await server.api(`/emails?account=${server.inbox}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, data: { nextCursor: null } });
    const [email] = res.json.data.emails;
    expect(email).toMatchObject({ uid, subject: 'Quarterly report', truncated: true, inReplyTo: null });
    expect(email.text).toHaveLength(500);
    expect(email.html).toBeUndefined();
    expect(email.bcc).toBeUndefined();
    expect(email.messageId).toMatch(/^<.+>$/);
    expect(email.threadId).toEqual(expect.any(String));
    expect(email.preview.length).toBeLessThanOrEqual(200);
    expect(email.size).toBeGreaterThan(0);
    expect(email.attachments).toHaveLength(2);
  });

  it('reads one email with full text and html, in INBOX by default', async () => {
    const res = await server.api(`/emails/${uid}?account=${server.inbox}`);
    expect(res.status).toBe(200);
    const email = res.json.data.email;
    expect(email.text).toContain('THE END');
    expect(email.truncated).toBeUndefined();
    expect(email.html).toContain('<b>ipsum</b>');
    expect((await server.api(`/emails/${uid}?account=${server.inbox}&folder=inbox`)).status).toBe(200);
  });

  it('does not change flags when an email is read', async () => {
    await server.api(`/emails/${uid}?account=${server.inbox}`);
    const res = await server.api(`/emails?account=${server.inbox}&unread=true`);
    expect(res.json.data.emails.map((e: { uid: number }) => e.uid)).toContain(uid);
  });

  it('downloads an attachment with its type and a safe filename, and the raw source', async () => {
    const email = (await server.api(`/emails/${uid}?account=${server.inbox}`)).json.data.email;
    const csv = email.attachments.find((a: { filename: string }) => a.filename === 'report.csv');
    const res = await server.api(`/emails/${uid}/attachments/${csv.id}?account=${server.inbox}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toContain('filename="report.csv"');
    expect(res.text).toBe('a,b\n1,2\n');
    expect(
      (await server.api(`/emails/${uid}/attachments/nope?account=${server.inbox}`)).json.error.code,
    ).toBe('not_found');

    const raw = await server.api(`/emails/${uid}/raw?account=${server.inbox}`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('message/rfc822');
    expect(raw.text).toContain('Subject: Quarterly report');
  });

  it('lists folders with totals and unread counts', async () => {
    const res = await server.api(`/folders?account=${server.inbox}`);
    expect(res.status).toBe(200);
    const names = res.json.data.folders.map((f: { name: string }) => f.name);
    expect(names).toEqual(expect.arrayContaining(['INBOX', 'Sent', 'Drafts', 'Trash', 'Spam']));
    expect(res.json.data.folders.find((f: { name: string }) => f.name === 'INBOX')).toMatchObject({
      specialUse: '\\Inbox',
      total: 1,
      unread: 1,
    });
  });

  describe('errors', () => {
    const expectError = (
      res: { status: number; json: { success: boolean; error: { code: string; message: string } } },
      status: number,
      code: string,
    ) => {
      expect(res.status).toBe(status);
      expect(res.json.success).toBe(false);
      expect(res.json.error.code).toBe(code);
      expect(res.json.error.message).toEqual(expect.any(String));
    };

    it('401 for a missing, malformed, unknown or revoked key', async () => {
      const path = `/emails?account=${server.inbox}`;
      expectError(await server.api(path, { key: null }), 401, 'unauthorized');
      expectError(
        await server.api(path, { headers: { authorization: 'Basic abc' }, key: null }),
        401,
        'unauthorized',
      );
      expectError(await server.api(path, { key: 'not-a-key' }), 401, 'unauthorized');
      expectError(await server.api(path, { key: `mr_live_${'x'.repeat(43)}` }), 401, 'unauthorized');
      const other = await server.addUser('revokee');
      expect((await server.api(`/emails?account=${other.inbox}`, { key: other.key })).status).toBe(200);
      const [row] = await server.mailroom.deps.store.apiKeys.list(other.userId);
      await server.mailroom.deps.store.apiKeys.revoke(row!.id);
      expectError(
        await server.api(`/emails?account=${other.inbox}`, { key: other.key }),
        401,
        'unauthorized',
      );
      const res = await server.api(path, { key: null });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      // The key is checked before the body: no key is 401 whatever the body looks like.
      const body = { body: 'x', headers: { 'content-type': 'text/plain' }, key: null };
      expectError(await server.api('/emails/send', body), 401, 'unauthorized');
    });

    it('400 when account is missing, with details naming the field', async () => {
      const res = await server.api('/emails');
      expectError(res, 400, 'validation_error');
      expect(res.json.error.details).toEqual([expect.objectContaining({ path: 'account' })]);
      expectError(await server.api(`/emails/${uid}`), 400, 'validation_error');
    });

    it('400 for a non-integer id, a bad limit, a bad cursor or a bad date', async () => {
      for (const id of ['abc', '1.5', '-1', '1e3']) {
        expectError(await server.api(`/emails/${id}?account=${server.inbox}`), 400, 'validation_error');
      }
      for (const query of ['limit=0', 'limit=101', 'limit=ten', 'cursor=zzz', 'since=yesterday']) {
        expectError(await server.api(`/emails?account=${server.inbox}&${query}`), 400, 'validation_error');
      }
    });

    it('404 for an unknown uid, an email in another folder, and an unknown folder', async () => {
      expectError(await server.api(`/emails/99999?account=${server.inbox}`), 404, 'not_found');
      expectError(await server.api(`/emails/${uid}?account=${server.inbox}&folder=Trash`), 404, 'not_found');
      expectError(await server.api(`/emails?account=${server.inbox}&folder=Nope`), 404, 'not_found');
      expectError(await server.api(`/emails/99999/raw?account=${server.inbox}`), 404, 'not_found');
      expectError(await server.api('/no/such/route'), 404, 'not_found');
    });

    it('415 for a body without a JSON content type, 400 invalid_json for a body that is not JSON', async () => {
      const send = '/emails/send';
      expectError(
        await server.api(send, { body: 'hello', headers: { 'content-type': 'text/plain' } }),
        415,
        'unsupported_media_type',
      );
      expectError(await server.api(send, { body: '{"from": ' }), 400, 'invalid_json');
    });

    it('never leaks a stack trace in an error', async () => {
      const res = await server.api(`/emails/${'9'.repeat(15)}?account=${server.inbox}`);
      expect(res.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
    });
  });

  describe('service routes', () => {
    it('/healthz and /readyz answer without a key', async () => {
      const health = await fetch(`${server.baseUrl}/healthz`);
      expect(health.status).toBe(200);
      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready' });
    });

    it('/api/v1/openapi.json is an OpenAPI 3.1 document listing the routes', async () => {
      const res = await server.api('/api/v1/openapi.json', { key: null });
      expect(res.status).toBe(200);
      expect(res.json.openapi).toMatch(/^3\.1\./);
      expect(res.json.info.title).toEqual(expect.any(String));
      for (const path of [
        '/emails',
        '/emails/{id}',
        '/emails/{id}/raw',
        '/threads',
        '/folders',
        '/accounts',
      ]) {
        expect(Object.keys(res.json.paths)).toContain(path);
      }
      expect(res.json.paths['/emails'].get.parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'account', in: 'query', required: true })]),
      );
      expect(res.json.components.securitySchemes.bearerAuth).toMatchObject({
        type: 'http',
        scheme: 'bearer',
      });
      const refs = JSON.stringify(res.json).match(/"\$ref":"[^"]+"/g) ?? [];
      for (const ref of new Set(refs)) {
        const target = ref.slice(8, -1).replace(/^#\//, '').split('/');
        const resolved = target.reduce((node, key) => node?.[key], res.json);
        expect(resolved, ref).toBeDefined();
      }
      for (const [path, item] of Object.entries(res.json.paths as Record<string, object>)) {
        for (const operation of Object.values(item as Record<string, { responses?: object }>)) {
          expect(Object.keys(operation.responses ?? {}).length, path).toBeGreaterThan(0);
        }
      }
    });

    it('/docs serves an HTML page with its assets', async () => {
      const res = await fetch(`${server.baseUrl}/docs`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('/api/v1/openapi.json');
      const asset = html.match(/src="([^"]+\.js)"/)?.[1];
      expect((await fetch(`${server.baseUrl}${asset}`)).status).toBe(200);
    });
  });
});

describe('the API rate limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ rateLimit: 5 });
  });
  afterAll(async () => server.stop());

  it('answers 429 with Retry-After and RateLimit-* headers once a key is over the limit', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<TestServer['api']>> | undefined;
    for (let i = 0; i < 7; i++) {
      last = await server.api(`/emails?account=${server.inbox}`);
      statuses.push(last.status);
      if (i === 0) {
        expect(last.headers.get('ratelimit-limit')).toBe('5');
        expect(last.headers.get('ratelimit-remaining')).toBe('4');
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(last!.json.error.code).toBe('rate_limited');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(last!.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  });

  it('counts each key on its own', async () => {
    const other = await server.addUser('fresh');
    expect((await server.api(`/emails?account=${other.inbox}`, { key: other.key })).status).toBe(200);
  });
});

describe('the request body limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ maxBodyBytes: 2048 });
  });
  afterAll(async () => server.stop());

  it('answers 413 payload_too_large for a body over MAILROOM_MAX_BODY_BYTES', async () => {
    const res = await server.api('/emails/send', {
      body: { from: server.inbox, to: 'x@example.com', subject: 'big', text: 'x'.repeat(4096) },
    });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('payload_too_large');
  });

  it('measures a body sent without Content-Length too', async () => {
    const chunks = [new TextEncoder().encode(`{"text":"${'x'.repeat(4096)}"}`)];
    const body = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const res = await fetch(`${server.baseUrl}/api/v1/emails/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });
});
