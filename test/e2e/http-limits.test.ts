// Engines: SQLite only: HTTP request limits, a door rule.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const TOKEN = 'admin-token-for-tests-0123456789';
const LIMIT = 1024 * 1024;
const STREAM = 32 * 1024 * 1024;

interface StreamedAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  /** Bytes of the body the client had handed to the connection when the answer arrived. */
  writtenWhenAnswered: number;
}

/**
 * POSTs a JSON body of `total` bytes with `Transfer-Encoding: chunked` (no Content-Length),
 * writing only as fast as the server reads, and stops writing once an answer arrives.
 */
function postChunked(port: number, path: string, bearer: string, total: number): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    });
    let written = 0;
    let answered = false;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    req.on('response', (res) => {
      answered = true;
      const writtenWhenAnswered = written;
      let body = '';
      res.on('data', (part: Buffer) => (body += part.toString()));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode!, json: JSON.parse(body), writtenWhenAnswered });
      });
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const pump = () => {
      if (written === 0) {
        written += 9;
        req.write('{"text":"');
      }
      while (!answered && written < total) {
        written += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end('"}');
    };
    pump();
  });
}

describe('HTTP request limits', { timeout: 60_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ adminToken: TOKEN, maxBodyBytes: LIMIT, maxHeaderBytes: 4096 });
  });
  afterAll(async () => server.stop());

  it('refuses a chunked body over the limit with 413 before reading it whole', async () => {
    const answer = await postChunked(server.mailroom.http.port, '/api/v1/emails/send', server.key, STREAM);
    expect(answer.status).toBe(413);
    expect(answer.json.error.code).toBe('payload_too_large');
    // The answer came while most of the body was still unsent: the server stopped reading.
    expect(answer.writtenWhenAnswered).toBeLessThan(STREAM / 2);
  });

  it('holds the same limit on the admin API', async () => {
    const answer = await postChunked(server.mailroom.http.port, '/admin/v1/users', TOKEN, STREAM);
    expect(answer.status).toBe(413);
    expect(answer.json.error.code).toBe('payload_too_large');
    expect(answer.writtenWhenAnswered).toBeLessThan(STREAM / 2);
  });

  it('still takes a chunked body under the limit', async () => {
    const answer = await postChunked(server.mailroom.http.port, '/admin/v1/users', TOKEN, 1000);
    // Read whole and handed to the route, which finds no `name` in it.
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('validation_error');
  });

  it('refuses JSON nested deeper than 32 levels with invalid_json before any route runs', async () => {
    const nest = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const deep = await server.api('/emails/send', { body: `{"headers": ${nest(40)}}` });
    expect(deep.status).toBe(400);
    expect(deep.json.error.code).toBe('invalid_json');
    expect(deep.json.error.message).toMatch(/deeper than 32/);
    // The same on the admin API, where nothing else would stop it.
    const admin = await server.api('/admin/v1/users', {
      key: TOKEN,
      body: `{"name": "x", "x": ${nest(5000)}}`,
    });
    expect(admin.status).toBe(400);
    expect(admin.json.error.code).toBe('invalid_json');

    // Brackets inside strings are text, not nesting; a shallow body reaches its route.
    const text = `${nest(100)} \\" ${nest(100)}`;
    const shallow = await server.api('/emails/send', {
      body: { from: server.inbox, to: 'someone@example.com', subject: 'Brackets', text },
    });
    expect(shallow.status).toBe(200);
  });

  it('answers 431 to request headers over MAILROOM_MAX_HEADER_BYTES', async () => {
    const big = await server.api('/accounts', { headers: { 'x-padding': 'p'.repeat(6000) } });
    expect(big.status).toBe(431);
    const fine = await server.api('/accounts', { headers: { 'x-padding': 'p'.repeat(2000) } });
    expect(fine.status).toBe(200);
  });
});
