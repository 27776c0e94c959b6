import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RESPONSE_EXCERPT_BYTES, postWebhook } from '../../src/events/http-post.js';

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  url: string;
  port: number;
  received: Received[];
  connections: number;
}

const servers: Server[] = [];

async function startServer(
  respond: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok'),
): Promise<TestServer> {
  const state = { received: [] as Received[], connections: 0 };
  const handler: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.received.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      respond(req, res);
    });
  };
  const server = createServer(handler);
  server.on('connection', () => state.connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, { url: `http://127.0.0.1:${port}`, port });
}

const settle = (ms = 100): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const dev = { timeoutMs: 2000, reach: 'any' as const };
const prod = { timeoutMs: 2000, reach: 'public' as const };
/** A server listening on loopback only. */
const local = { timeoutMs: 2000, reach: 'public-or-loopback' as const };

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('postWebhook', () => {
  it('delivers body and headers as sent and treats 200 as success', async () => {
    const srv = await startServer();
    const body = JSON.stringify({ id: 'evt_1', text: 'héllo ✉' });
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'evt_1',
      'webhook-signature': 'v1,abc',
    };
    const r = await postWebhook(`${srv.url}/hooks/in?x=1`, headers, body, dev);
    expect(r).toMatchObject({ ok: true, status: 200, error: null, gone: false });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(srv.received).toHaveLength(1);
    const got = srv.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hooks/in?x=1');
    expect(got.body).toBe(body);
    expect(got.headers).toMatchObject({ ...headers, 'content-length': String(Buffer.byteLength(body)) });
  });

  it('fails on a 500 with its status', async () => {
    const srv = await startServer((_req, res) => {
      res.statusCode = 500;
      res.end('boom');
    });
    expect(await postWebhook(srv.url, {}, '{}', dev)).toMatchObject({
      ok: false,
      status: 500,
      error: 'HTTP 500',
      gone: false,
    });
  });

  it('reports 410 as gone', async () => {
    const srv = await startServer((_req, res) => {
      res.statusCode = 410;
      res.end();
    });
    expect(await postWebhook(srv.url, {}, '{}', dev)).toMatchObject({ ok: false, status: 410, gone: true });
  });

  it('does not follow a redirect', async () => {
    const target = await startServer();
    const srv = await startServer((_req, res) => {
      res.writeHead(302, { location: `${target.url}/elsewhere` });
      res.end();
    });
    const r = await postWebhook(srv.url, {}, '{}', dev);
    expect(r).toMatchObject({ ok: false, status: 302, error: 'redirect not followed' });
    await settle();
    expect(target.connections).toBe(0);
    expect(target.received).toHaveLength(0);
  });

  it('times out on a server that never answers', async () => {
    const srv = await startServer(() => undefined);
    const started = Date.now();
    const r = await postWebhook(srv.url, {}, '{}', { timeoutMs: 300, reach: 'any' });
    const took = Date.now() - started;
    expect(r).toMatchObject({ ok: false, status: null, error: 'timeout' });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1000);
  });

  it('keeps the status when the body is still streaming at the timeout', async () => {
    const srv = await startServer((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const r = await postWebhook(srv.url, {}, '{}', { timeoutMs: 300, reach: 'any' });
    expect(r).toMatchObject({ ok: true, status: 200, error: null });
  });

  it('stops reading a huge response body', async () => {
    const srv = await startServer((_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(4 * 1024 * 1024, 'x'));
    });
    expect(await postWebhook(srv.url, {}, '{}', dev)).toMatchObject({ ok: true, status: 200 });
  });

  it('keeps the first 2 KB of the answer as text, with its size; a character cut at 2 KB is dropped', async () => {
    const answer = `a${'é'.repeat(3000)}\u0000end`;
    const srv = await startServer((_req, res) => {
      res.statusCode = 503;
      res.end(answer);
    });
    const r = await postWebhook(srv.url, {}, '{}', dev);
    expect(r).toMatchObject({ status: 503, responseBytes: Buffer.byteLength(answer) });
    expect(Buffer.byteLength(r.responseExcerpt!)).toBe(RESPONSE_EXCERPT_BYTES - 1);
    expect(r.responseExcerpt).toBe(`a${'é'.repeat(1023)}`);

    const short = await startServer((_req, res) => res.end('ok\u0000'));
    expect(await postWebhook(short.url, {}, '{}', dev)).toMatchObject({
      responseExcerpt: 'ok\uFFFD',
      responseBytes: 3,
    });
  });

  it('keeps no answer when none came', async () => {
    const srv = await startServer(() => undefined);
    const r = await postWebhook(srv.url, {}, '{}', { timeoutMs: 300, reach: 'any' });
    expect(r).toMatchObject({ status: null, responseExcerpt: null, responseBytes: null });
  });

  it('opens a new connection for every delivery', async () => {
    const srv = await startServer();
    await postWebhook(srv.url, {}, '{}', dev);
    await postWebhook(srv.url, {}, '{}', dev);
    expect(srv.connections).toBe(2);
  });

  it('refuses a private IP literal without connecting', async () => {
    const srv = await startServer();
    const r = await postWebhook(`${srv.url}/hook`, {}, '{}', prod);
    expect(r).toMatchObject({
      ok: false,
      status: null,
      error:
        'webhook URL points to a private address (127.0.0.1); MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets',
    });
    await settle();
    expect(srv.connections).toBe(0);
    expect(srv.received).toHaveLength(0);
  });

  it('refuses localhost names without connecting', async () => {
    const srv = await startServer();
    const r = await postWebhook(`http://localhost:${srv.port}/`, {}, '{}', prod);
    expect(r).toMatchObject({
      ok: false,
      error: 'webhook URL points to localhost; MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets',
    });
    expect(srv.connections).toBe(0);
  });

  it('refuses at connect time a name that now resolves to loopback (DNS rebinding)', async () => {
    const srv = await startServer();
    const asked: string[] = [];
    const lookup = async (host: string): Promise<string[]> => {
      asked.push(host);
      return ['127.0.0.1'];
    };
    const r = await postWebhook(`http://rebind.example.com:${srv.port}/hook`, {}, '{}', { ...prod, lookup });
    expect(r).toMatchObject({
      ok: false,
      status: null,
      // Without the address: a delivery's error is shown to the key holder.
      error:
        'webhook URL resolves to a non-public address; MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets',
    });
    expect(asked).toEqual(['rebind.example.com']);
    await settle();
    expect(srv.connections).toBe(0);
    expect(srv.received).toHaveLength(0);
  });

  it('refuses when any resolved address is private', async () => {
    const srv = await startServer();
    const lookup = async (): Promise<string[]> => ['93.184.216.34', '::ffff:127.0.0.1'];
    const r = await postWebhook(`http://mixed.example.com:${srv.port}/`, {}, '{}', { ...prod, lookup });
    expect(r.error).toBe(
      'webhook URL resolves to a non-public address; MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets',
    );
    expect(srv.connections).toBe(0);
  });

  it('delivers to loopback, by address or by name, when the server listens on loopback only', async () => {
    const srv = await startServer();
    expect(await postWebhook(`${srv.url}/hook`, {}, '{}', local)).toMatchObject({ ok: true, status: 200 });
    const byName = await postWebhook(`http://localhost:${srv.port}/hook`, {}, '{}', {
      ...local,
      lookup: async () => ['127.0.0.1'],
    });
    expect(byName).toMatchObject({ ok: true, status: 200 });
    expect(srv.received).toHaveLength(2);
  });

  it('refuses other private addresses at connect time on a loopback-only server', async () => {
    const srv = await startServer();
    const lookup = async (): Promise<string[]> => ['127.0.0.1', '192.168.1.20'];
    const r = await postWebhook(`http://both.example.com:${srv.port}/`, {}, '{}', { ...local, lookup });
    expect(r.error).toBe(
      'webhook URL resolves to a non-public address; MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets',
    );
    expect((await postWebhook('http://10.1.2.3/', {}, '{}', local)).error).toBe(
      'webhook URL points to a private address (10.1.2.3); MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets',
    );
    expect(srv.connections).toBe(0);
  });

  it('connects through the injected lookup when private targets are allowed', async () => {
    const srv = await startServer();
    const lookup = async (): Promise<string[]> => ['127.0.0.1'];
    const r = await postWebhook(`http://hooks.test:${srv.port}/in`, {}, '{}', { ...dev, lookup });
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(srv.received[0]?.headers.host).toBe(`hooks.test:${srv.port}`);
  });

  it('never throws: bad URLs, lookup failures, refused connections, bad headers', async () => {
    expect(await postWebhook('ftp://example.com/', {}, '{}', dev)).toMatchObject({ ok: false, status: null });
    expect(await postWebhook('not a url', {}, '{}', dev)).toMatchObject({ ok: false });
    const nx = await postWebhook('http://nx.example.com/', {}, '{}', {
      ...prod,
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nx.example.com'), { code: 'ENOTFOUND' });
      },
    });
    expect(nx).toMatchObject({ ok: false, error: 'getaddrinfo ENOTFOUND nx.example.com' });
    const empty = await postWebhook('http://empty.example.com/', {}, '{}', {
      ...prod,
      lookup: async () => [],
    });
    expect(empty).toMatchObject({ ok: false, error: 'getaddrinfo ENOTFOUND empty.example.com' });

    const srv = await startServer();
    const port = srv.port;
    const closing = servers.pop()!;
    closing.closeAllConnections();
    await new Promise((resolve) => closing.close(resolve));
    const refused = await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', dev);
    expect(refused).toMatchObject({ ok: false, status: null });
    expect(refused.error).toMatch(/ECONNREFUSED/);

    const badHeader = await postWebhook(`http://127.0.0.1:${port}/`, { 'x-bad': 'a\r\nb' }, '{}', dev);
    expect(badHeader).toMatchObject({ ok: false, status: null });
  });
});
