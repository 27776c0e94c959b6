import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ipLiteral } from '../net/address-ranges.js';
import type { Reach, Resolver } from '../net/reach.js';
import { defaultResolve, guardedLookup, mayReach } from '../net/reach.js';
import { parseWebhookUrl, webhookRefusal } from './url-guard.js';

export interface PostResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  /** The endpoint answered 410 Gone. */
  gone: boolean;
}

export interface PostOptions {
  timeoutMs: number;
  /** Where the post may connect (webhookReach). */
  reach: Reach;
  /** Resolves a host name to its addresses; defaults to `dns.lookup` with `all: true`. */
  lookup?: Resolver;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

function statusResult(status: number, durationMs: number): PostResult {
  const ok = status >= 200 && status < 300;
  let error: string | null = null;
  if (status >= 300 && status < 400) error = 'redirect not followed';
  else if (!ok) error = `HTTP ${status}`;
  return { ok, status, error, durationMs, gone: status === 410 };
}

/**
 * POSTs one webhook delivery. Never throws; redirects are not followed and only 2xx counts as
 * success. The timeout covers connecting, the response headers and reading the (discarded) body.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: PostOptions,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const fail = (error: string, status: number | null = null): PostResult => ({
    ok: false,
    status,
    error,
    durationMs: elapsed(),
    gone: false,
  });

  const parsed = parseWebhookUrl(url);
  if (!parsed.ok) return fail(parsed.reason);
  const target = parsed.url;
  // A name is checked by the socket's lookup as it connects; an IP literal is never looked up.
  const literal = ipLiteral(target.hostname);
  if (literal !== null && !mayReach(literal, opts.reach)) {
    return fail(webhookRefusal({ ok: false, why: 'literal', address: literal }));
  }

  return new Promise<PostResult>((resolvePromise) => {
    let settled = false;
    let req: ClientRequest | undefined;
    let status: number | null = null;

    const finish = (result: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      resolvePromise(result);
    };
    const timer = setTimeout(() => {
      finish(status === null ? fail('timeout') : statusResult(status, elapsed()));
    }, opts.timeoutMs);

    const requestOptions: RequestOptions = {
      method: 'POST',
      hostname: literal ?? target.hostname,
      port: target.port === '' ? undefined : Number(target.port),
      path: `${target.pathname}${target.search}`,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      // A private agent per request: no socket (and no earlier address check) is ever reused.
      agent: false,
      lookup: guardedLookup(
        opts.lookup ?? defaultResolve,
        opts.reach,
        (check) => new Error(webhookRefusal(check)),
      ),
    };

    const onResponse = (res: IncomingMessage): void => {
      status = res.statusCode ?? null;
      const done = (): void => {
        finish(status === null ? fail('invalid response') : statusResult(status, elapsed()));
      };
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= MAX_RESPONSE_BYTES) done();
      });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    };

    try {
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      req = send(requestOptions, onResponse);
      req.on('error', (err: Error) => {
        finish(status === null ? fail(err.message || 'request failed') : statusResult(status, elapsed()));
      });
      req.end(body);
    } catch (err) {
      finish(fail(err instanceof Error ? err.message : 'request failed'));
    }
  });
}
