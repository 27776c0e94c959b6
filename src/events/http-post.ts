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
  /** The answer's body: its first RESPONSE_EXCERPT_BYTES as text, null when no answer came. */
  responseExcerpt: string | null;
  /** How many bytes of body came (counted up to MAX_RESPONSE_BYTES, where reading stops). */
  responseBytes: number | null;
}

export interface PostOptions {
  timeoutMs: number;
  /** Where the post may connect (webhookReach). */
  reach: Reach;
  /** Resolves a host name to its addresses; defaults to `dns.lookup` with `all: true`. */
  lookup?: Resolver;
}

/** Reading an answer's body stops after this many bytes. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of an answer's body is kept with the attempt, for a person to read what the endpoint said. */
export const RESPONSE_EXCERPT_BYTES = 2048;

/** The answer's body as it came in: its size, and its start kept as text. */
class BodyExcerpt {
  bytes = 0;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;

  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    const room = RESPONSE_EXCERPT_BYTES - this.keptBytes;
    if (room <= 0) return;
    const part = chunk.subarray(0, room);
    this.kept.push(part);
    this.keptBytes += part.length;
  }

  /** UTF-8 (a character cut at the end dropped), without NUL, which a PostgreSQL text cannot hold. */
  text(): string {
    return new TextDecoder().decode(Buffer.concat(this.kept), { stream: true }).replace(/\0/g, '\uFFFD');
  }
}

function statusResult(status: number, durationMs: number, answer: BodyExcerpt): PostResult {
  const ok = status >= 200 && status < 300;
  let error: string | null = null;
  if (status >= 300 && status < 400) error = 'redirect not followed';
  else if (!ok) error = `HTTP ${status}`;
  return {
    ok,
    status,
    error,
    durationMs,
    gone: status === 410,
    responseExcerpt: answer.text(),
    responseBytes: answer.bytes,
  };
}

/**
 * POSTs one webhook delivery. Never throws; redirects are not followed and only 2xx counts as
 * success. The timeout covers connecting, the response headers and reading the body (its start kept).
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
    responseExcerpt: null,
    responseBytes: null,
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
    const answer = new BodyExcerpt();

    const finish = (result: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      resolvePromise(result);
    };
    const timer = setTimeout(() => {
      finish(status === null ? fail('timeout') : statusResult(status, elapsed(), answer));
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
        finish(status === null ? fail('invalid response') : statusResult(status, elapsed(), answer));
      };
      res.on('data', (chunk: Buffer) => {
        answer.add(chunk);
        if (answer.bytes >= MAX_RESPONSE_BYTES) done();
      });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    };

    try {
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      req = send(requestOptions, onResponse);
      req.on('error', (err: Error) => {
        finish(
          status === null ? fail(err.message || 'request failed') : statusResult(status, elapsed(), answer),
        );
      });
      req.end(body);
    } catch (err) {
      finish(fail(err instanceof Error ? err.message : 'request failed'));
    }
  });
}
