import pino from 'pino';
import { createMailroom } from '../../src/mailroom.js';
import { fileMessage } from '../../src/mailbox/ingest/file-message.js';
import { parseEmail } from '../../src/mail/parse.js';
import { sampleBody } from './ingest.js';

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

export const WARM_UP = 300;

/**
 * Times `requests` sequential GETs of the URLs `url(i)` returns, in milliseconds, after WARM_UP
 * untimed ones: a server that has answered 20 requests has not compiled its hot paths yet (V8
 * optimises after a few hundred), and its p50 read up to 1.5 ms higher on a 5 ms page than the
 * same server a few hundred requests later. A server in use is warm; this measures that.
 */
export async function timeRequests(
  url: (i: number) => string,
  apiKey: string,
  requests: number,
): Promise<Latency> {
  const headers = { authorization: `Bearer ${apiKey}` };
  for (let i = 0; i < WARM_UP; i++) await (await fetch(url(i), { headers })).arrayBuffer();
  const samples: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = process.hrtime.bigint();
    const res = await fetch(url(i), { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url(i)} answered ${res.status}`);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return percentiles(samples);
}
