import http from 'node:http';
import https from 'node:https';
import { SPAM_ACTIONS } from '../../contract/emails.js';
import type { SpamCheckView } from '../../mailbox/reading/email-view.js';

/** rspamd could not be asked in time, or answered something other than a verdict. */
export class RspamdUnavailable extends Error {}

/** What rspamd is told of the SMTP transaction besides the message itself. */
export interface RspamdEnvelope {
  ip: string;
  helo: string;
  /** The MAIL FROM address; empty for a bounce. */
  from: string;
  rcpt: string[];
  /** The client's name from reverse DNS, when known. */
  hostname?: string;
  queueId: string;
}

interface CheckAnswer {
  score?: unknown;
  required_score?: unknown;
  action?: unknown;
  symbols?: Record<string, { score?: unknown }>;
}

/**
 * Asks rspamd's `/checkv2` for its verdict on a message, with the envelope, client IP and HELO
 * as its request headers. Rejects with RspamdUnavailable when it is unreachable, slower than
 * `timeoutMs`, or its answer is not a verdict.
 */
export function checkWithRspamd(
  baseUrl: string,
  message: Buffer,
  envelope: RspamdEnvelope,
  timeoutMs: number,
): Promise<SpamCheckView> {
  const url = new URL('checkv2', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  // Repeated names (one Rcpt per recipient) need the raw [name, value, ...] form of headers.
  const headers = [
    'Content-Length',
    String(message.length),
    'IP',
    envelope.ip,
    'Helo',
    envelope.helo,
    'From',
    envelope.from,
    'Queue-Id',
    envelope.queueId,
    ...envelope.rcpt.flatMap((rcpt) => ['Rcpt', rcpt]),
    ...(envelope.hostname ? ['Hostname', envelope.hostname] : []),
  ];
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error: Error | null, check?: SpamCheckView) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        request.destroy();
        reject(error);
      } else resolve(check!);
    };
    const timer = setTimeout(
      () => settle(new RspamdUnavailable(`rspamd did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const request = transport.request(url, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => settle(new RspamdUnavailable(`rspamd: ${error.message}`)));
      response.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (response.statusCode !== 200) {
          return settle(
            new RspamdUnavailable(`rspamd answered ${response.statusCode}: ${body.slice(0, 200)}`),
          );
        }
        try {
          settle(null, verdictOf(JSON.parse(body) as CheckAnswer));
        } catch (error) {
          settle(new RspamdUnavailable(`rspamd's answer is not a verdict: ${(error as Error).message}`));
        }
      });
    });
    request.on('error', (error) =>
      settle(new RspamdUnavailable(`rspamd at ${url.origin}: ${error.message}`)),
    );
    request.end(message);
  });
}

function verdictOf(answer: CheckAnswer): SpamCheckView {
  const action = SPAM_ACTIONS.find((a) => a === answer.action);
  if (!action || typeof answer.score !== 'number' || typeof answer.required_score !== 'number') {
    throw new Error(`action ${JSON.stringify(answer.action)}, score ${JSON.stringify(answer.score)}`);
  }
  const symbols = Object.entries(answer.symbols ?? {})
    .map(([name, symbol]) => ({ name, score: typeof symbol.score === 'number' ? symbol.score : 0 }))
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  return { score: answer.score, required: answer.required_score, action, symbols };
}
