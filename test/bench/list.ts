import pino from 'pino';
import { createMailroom } from '../../src/mailroom.js';
import { fileMessage } from '../../src/mailbox/ingest/file-message.js';
import { parseEmail } from '../../src/mail/parse.js';
import { sampleBody } from './ingest.js';
import { PageClient } from './page-client.js';

/** Fills a fresh data directory with `count` messages in one inbox, through the same code SMTP uses. */
export async function fillInbox(dataDir: string, count: number): Promise<{ inbox: string; apiKey: string }> {
  const mailroom = createMailroom({
    env: {},
    dataDir,
    verifyAuth: false,
    logger: pino({ level: 'silent' }),
    httpPort: 0,
    smtpPort: 0,
  });
  await mailroom.start();
  const boot = mailroom.bootstrap!;
  const { store } = mailroom.deps;
  const inbox = (await store.inboxes.findByAddress(boot.inbox))!;
  const folder = (await store.folders.find(inbox.id, 'INBOX'))!;
  const raw = Buffer.from(
    `From: Sender <sender@example.com>\r\nTo: ${boot.inbox}\r\nSubject: template\r\nMessage-ID: <t@example.com>\r\n\r\n${sampleBody(0)}`,
  );
  const template = await parseEmail(raw);
  const words = ['invoice', 'meeting', 'report', 'travel', 'launch', 'budget', 'contract', 'review'];
  const batch = 2000;
  for (let start = 0; start < count; start += batch) {
    await store.db.transaction(async () => {
      for (let i = start; i < Math.min(count, start + batch); i++) {
        const parsed = {
          ...template,
          subject: `Message ${i} about ${words[i % words.length]}`,
          messageId: `<m${i}@example.com>`,
          from: { address: `sender${i % 500}@example.com`, name: `Sender ${i % 500}` },
          date: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
        };
        await fileMessage(store, {
          inbox,
          folder,
          parsed,
          raw,
          flags: i % 3 === 0 ? ['\\Seen'] : [],
          receivedAt: parsed.date,
        });
      }
    });
  }
  await mailroom.stop();
  return { inbox: boot.inbox, apiKey: boot.apiKey };
}

export interface Latency {
  p50: number;
  p99: number;
  samples: number;
}

export function percentiles(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), samples: sorted.length };
}

/** Untimed requests before each timed series: the hot paths of this one compiled. */
export const WARM_UP = 300;

/**
 * Requests a freshly started server answers before its first series is timed. V8 keeps
 * optimising a server's request path for a couple of thousand requests (on PostgreSQL the first
 * page's p50 fell from 8-10 ms to ~4.5 ms over the first 2,500 requests on this machine,
 * docs/decisions/list-performance.md, "The list bench measures a warm server"): a server in use has
 * answered far more. The p50 of its
 * first 300 requests is printed too.
 */
export const SERVER_WARM_UP = 2_000;

const clients = new Map<string, PageClient>();

/**
 * One GET on a kept-alive connection, its body read to the end; its status. A PageClient rather
 * than fetch or node:http: on two cores the client's own work, and its garbage collections, are
 * time the server waits for a core or the client adds to a page (page-client.ts).
 */
function get(url: string, headers: Record<string, string>): Promise<number> {
  const { hostname, port, pathname, search } = new URL(url);
  const origin = `${hostname}:${port}`;
  let client = clients.get(origin);
  if (!client) clients.set(origin, (client = new PageClient(hostname, Number(port))));
  return client.get(pathname + search, headers);
}

/** `requests` sequential GETs, untimed. */
export async function warmUp(url: (i: number) => string, apiKey: string, requests: number): Promise<void> {
  const headers = { authorization: `Bearer ${apiKey}` };
  for (let i = 0; i < requests; i++) await get(url(i), headers);
}

/**
 * Times `requests` sequential GETs of the URLs `url(i)` returns, in milliseconds, after
 * `warmUpRequests` untimed ones (WARM_UP unless told).
 */
export async function timeRequests(
  url: (i: number) => string,
  apiKey: string,
  requests: number,
  warmUpRequests = WARM_UP,
): Promise<Latency> {
  const headers = { authorization: `Bearer ${apiKey}` };
  await warmUp(url, apiKey, warmUpRequests);
  const samples: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = process.hrtime.bigint();
    const status = await get(url(i), headers);
    if (status !== 200) throw new Error(`GET ${url(i)} answered ${status}`);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return percentiles(samples);
}

/** Requests to the list's route the server has timed itself, and how many within 5 and 10 ms. */
export interface ServerTimed {
  all: number;
  within5: number;
  within10: number;
}

/**
 * The server's own latency histogram for `GET /api/v1/emails` (its /metrics): from the request
 * entering the app to the handler's answer, without the client's CPU or the time a reply spends
 * reaching it. On two cores the bench's client takes ~1.3-1.6 ms of CPU a page (89 KB of JSON),
 * and its own scheduling shows in the client's p99; the server's view tells the two apart.
 */
export async function serverTimedLists(port: number): Promise<ServerTimed> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const bucket = (le: string) => {
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith('mailroom_http_request_duration_seconds_bucket{') &&
          l.includes('method="GET"') &&
          l.includes('route="/api/v1/emails"') &&
          l.includes(`le="${le}"`),
      );
    return Number(line?.split(' ').pop() ?? 0);
  };
  return { all: bucket('+Inf'), within5: bucket('0.005'), within10: bucket('0.01') };
}
