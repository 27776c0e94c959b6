import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/** One scrape: the raw text and every sample by `name{labels}` exactly as exposed. */
interface Scrape {
  status: number;
  contentType: string | null;
  text: string;
  samples: Map<string, number>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (\S+)$/;

async function scrape(server: TestServer, token?: string): Promise<Scrape> {
  const res = await fetch(`${server.baseUrl}/metrics`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  const samples = new Map<string, number>();
  if (res.status === 200) {
    for (const line of text.split('\n')) {
      const match = SAMPLE.exec(line);
      if (match) samples.set(`${match[1]}${match[2] ?? ''}`, Number(match[3]));
    }
  }
  return { status: res.status, contentType: res.headers.get('content-type'), text, samples };
}

/** A sample's value, 0 when the series does not exist yet; labels in the order they are exposed. */
function value(s: Scrape, name: string, labels: Record<string, string> = {}): number {
  const entries = Object.entries(labels);
  const key = entries.length ? `${name}{${entries.map(([k, v]) => `${k}="${v}"`).join(',')}}` : name;
  return s.samples.get(key) ?? 0;
}

describe('GET /metrics', () => {
  let server: TestServer;
  let bob: { key: string; inbox: string };

  beforeAll(async () => {
    server = await startServer({ webhookRetryDelaysMs: new Array(10).fill(50), webhookTimeoutMs: 2000 });
    bob = await server.addUser('bob');
  });
  afterAll(async () => server.stop());

  it('is Prometheus text: HELP and TYPE for every family, every other line `name{labels} value`', async () => {
    await server.api(`/emails?account=${server.inbox}`);
    const s = await scrape(server);
    expect(s.status).toBe(200);
    expect(s.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(s.text.endsWith('\n')).toBe(true);
    const lines = s.text.trimEnd().split('\n');
    const typed = new Set<string>();
    for (const line of lines) {
      const comment = /^# (HELP|TYPE) (\S+) (.+)$/.exec(line);
      if (comment) {
        if (comment[1] === 'TYPE') {
          expect(['counter', 'gauge', 'histogram']).toContain(comment[3]);
          typed.add(comment[2]!);
        }
        continue;
      }
      expect(line).toMatch(SAMPLE);
      const name = SAMPLE.exec(line)![1]!;
      // Mailroom's own, and the process's under the names Prometheus's client libraries use.
      expect(name, line).toMatch(/^(mailroom|process|nodejs)_/);
      expect(Number.isFinite(Number(SAMPLE.exec(line)![3]))).toBe(true);
      // A sample follows the TYPE of its family (histogram samples carry a suffix).
      expect(typed.has(name) || typed.has(name.replace(/_(bucket|sum|count)$/, ''))).toBe(true);
    }
    for (const name of [
      'mailroom_messages_received_total',
      'mailroom_messages_sent_total',
      'mailroom_messages_bounced_total',
      'mailroom_messages_stored',
      'mailroom_outbound_queue_depth',
      'mailroom_webhook_queue_depth',
      'mailroom_webhook_attempts_total',
      'mailroom_http_requests_total',
      'mailroom_http_request_duration_seconds',
    ]) {
      expect(typed, name).toContain(name);
    }
    // Every known status is a series from the start, so rate() and alerts have something to read.
    for (const status of ['queued', 'deferred', 'delivered', 'failed', 'captured']) {
      expect(s.samples.has(`mailroom_outbound_deliveries{status="${status}"}`), status).toBe(true);
    }
    for (const status of ['pending', 'succeeded', 'failed']) {
      expect(s.samples.has(`mailroom_webhook_deliveries{status="${status}"}`), status).toBe(true);
    }
  });

  it('counts mail received over SMTP and sent through the API (sandbox)', async () => {
    const before = await scrape(server);
    for (const n of [1, 2]) {
      await server.sendMail({ from: 'alice@example.com', to: server.inbox, subject: `In ${n}`, text: 'x' });
    }
    const external = await server.api('/emails/send', {
      body: { from: server.inbox, to: ['carol@example.org', 'dave@example.net'], subject: 'Out', text: 'x' },
    });
    expect(external.status).toBe(200);
    // To a local inbox: sent by one inbox and received by the other.
    const local = await server.api('/emails/send', {
      body: { from: server.inbox, to: bob.inbox, subject: 'Hi Bob', text: 'x' },
    });
    expect(local.status).toBe(200);

    const after = await scrape(server);
    const moved = (name: string, labels?: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    expect(moved('mailroom_messages_received_total')).toBe(3);
    expect(moved('mailroom_messages_sent_total')).toBe(2);
    expect(moved('mailroom_messages_bounced_total')).toBe(0);
    // Two in INBOX, two Sent copies, one in Bob's INBOX.
    expect(moved('mailroom_messages_stored')).toBe(5);
    expect(moved('mailroom_outbound_deliveries', { status: 'captured' })).toBe(2);
    expect(value(after, 'mailroom_outbound_queue_depth')).toBe(0);
  });

  it('labels HTTP requests by route pattern and status, never by the raw path', async () => {
    await server.sendMail({ from: 'alice@example.com', to: server.inbox, subject: 'Readable', text: 'x' });
    const uid = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails[0].uid as number;
    const route = '/api/v1/emails/:id';
    const before = await scrape(server);

    expect((await server.api(`/emails/${uid}?account=${server.inbox}`)).status).toBe(200);
    expect((await server.api(`/emails/987654?account=${server.inbox}`)).status).toBe(404);
    expect((await server.api(`/emails/${uid}?account=${server.inbox}`, { key: null })).status).toBe(401);
    expect((await server.api('/no/such/path/31337')).status).toBe(404);

    const after = await scrape(server);
    const moved = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    const requests = (status: string) => ({ method: 'GET', route, status });
    expect(moved('mailroom_http_requests_total', requests('200'))).toBe(1);
    expect(moved('mailroom_http_requests_total', requests('404'))).toBe(1);
    expect(moved('mailroom_http_requests_total', requests('401'))).toBe(1);
    expect(moved('mailroom_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(
      1,
    );
    // Everything exposed but the sample values: a process figure (bytes, seconds) may hold
    // these digits by chance; a path can only leak through a name, a label or a comment.
    const exposed = after.text
      .split('\n')
      .map((line) => (line.startsWith('#') ? line : line.replace(/ \S+$/, '')))
      .join('\n');
    expect(exposed).not.toContain('987654');
    expect(exposed).not.toContain('31337');
    expect(exposed).not.toContain(`/api/v1/emails/${uid}"`);

    const latency = { method: 'GET', route };
    expect(moved('mailroom_http_request_duration_seconds_count', latency)).toBe(3);
    expect(value(after, 'mailroom_http_request_duration_seconds_sum', latency)).toBeGreaterThan(0);
    const buckets = [...after.samples]
      .filter(([key]) =>
        key.startsWith(`mailroom_http_request_duration_seconds_bucket{method="GET",route="${route}",`),
      )
      .map(([, v]) => v);
    expect(buckets).toHaveLength(12);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b)); // cumulative
    expect(buckets.at(-1)).toBe(value(after, 'mailroom_http_request_duration_seconds_count', latency));
  });

  it('counts webhook attempts by result and shows the webhook queue', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const created = await server.api('/webhooks', {
        key: bob.key,
        body: { url: receiver.url, events: ['email.received'] },
      });
      expect(created.status).toBe(201);
      const before = await scrape(server);
      receiver.failNext(1, 503);
      await server.sendMail({ from: 'alice@example.com', to: bob.inbox, subject: 'Hook me', text: 'x' });

      const moved = (s: Scrape, name: string, labels: Record<string, string>) =>
        value(s, name, labels) - value(before, name, labels);
      const after = await eventually(async () => {
        const s = await scrape(server);
        return moved(s, 'mailroom_webhook_deliveries', { status: 'succeeded' }) === 1 && s;
      });
      expect(moved(after, 'mailroom_webhook_attempts_total', { result: 'failed' })).toBe(1);
      expect(moved(after, 'mailroom_webhook_attempts_total', { result: 'succeeded' })).toBe(1);
      expect(value(after, 'mailroom_webhook_queue_depth')).toBe(0);
      expect(receiver.delivered).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('keeps the mail counters across a restart; HTTP counters start again', async () => {
    const before = await scrape(server);
    expect(value(before, 'mailroom_messages_received_total')).toBeGreaterThan(0);
    await server.restart();
    const after = await scrape(server);
    for (const name of [
      'mailroom_messages_received_total',
      'mailroom_messages_sent_total',
      'mailroom_messages_stored',
    ]) {
      expect(value(after, name), name).toBe(value(before, name));
    }
    expect(after.text).not.toContain('route="/api/v1/emails/:id"');
  });
});

describe('GET /metrics with outbound trouble (relay)', () => {
  let capture: CaptureServer;
  let server: TestServer;

  beforeAll(async () => {
    capture = await startCaptureServer();
    server = await startServer({
      outbound: 'relay',
      relayUrl: capture.url,
      outboundOptions: { retryBaseMs: 100, retryMaxMs: 200, pollMs: 500 },
    });
  });
  afterAll(async () => {
    await server.stop();
    await capture.close();
  });

  it('shows a waiting delivery in the queue depth and counts a bounce', async () => {
    const before = await scrape(server);
    capture.respond('busy@example.com', 451);
    capture.respond('gone@example.com', 550);
    const sent = await server.api('/emails/send', {
      body: {
        from: server.inbox,
        to: ['busy@example.com', 'gone@example.com'],
        subject: 'Trouble',
        text: 'x',
      },
    });
    expect(sent.status).toBe(200);

    const waiting = await eventually(async () => {
      const s = await scrape(server);
      return value(s, 'mailroom_messages_bounced_total') === 1 && s;
    });
    expect(value(waiting, 'mailroom_outbound_queue_depth')).toBe(1);
    expect(value(waiting, 'mailroom_outbound_deliveries', { status: 'failed' })).toBe(1);
    expect(value(before, 'mailroom_messages_bounced_total')).toBe(0);

    capture.respond('busy@example.com', null);
    const drained = await eventually(async () => {
      const s = await scrape(server);
      return value(s, 'mailroom_outbound_queue_depth') === 0 && s;
    });
    expect(value(drained, 'mailroom_outbound_deliveries', { status: 'delivered' })).toBe(1);
  });

  it("shows the serving process's memory, CPU time and start time", async () => {
    const before = await scrape(server);
    // Work the process does between two scrapes shows in its CPU time.
    for (let i = 0; i < 20; i++) await scrape(server);
    const after = await scrape(server);
    // The test server runs in this process: its figures are this process's.
    const rss = process.memoryUsage().rss;
    expect(value(after, 'process_resident_memory_bytes')).toBeGreaterThan(rss / 2);
    expect(value(after, 'process_resident_memory_bytes')).toBeLessThan(rss * 2);
    const started = Date.now() / 1000 - process.uptime();
    expect(Math.abs(value(after, 'process_start_time_seconds') - started)).toBeLessThanOrEqual(2);
    expect(value(before, 'process_start_time_seconds')).toBe(value(after, 'process_start_time_seconds'));
    expect(value(after, 'process_cpu_seconds_total')).toBeGreaterThan(
      value(before, 'process_cpu_seconds_total'),
    );
    expect(value(after, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(1024 * 1024);
    expect(after.text).toContain('# TYPE process_cpu_seconds_total counter');
  });

  it('counts garbage-collection pauses by kind, with their seconds', async () => {
    const major = (s: Scrape) => value(s, 'nodejs_gc_duration_seconds_count', { kind: 'major' });
    const before = await scrape(server);
    (globalThis as { gc: () => void }).gc();
    // The observer hears of a collection on a later turn of the event loop.
    let after = await scrape(server);
    while (major(after) === major(before)) after = await scrape(server);
    expect(major(after)).toBeGreaterThan(major(before));
    expect(value(after, 'nodejs_gc_duration_seconds_sum', { kind: 'major' })).toBeGreaterThan(0);
    expect(value(after, 'nodejs_gc_duration_seconds_bucket', { kind: 'major', le: '+Inf' })).toBe(
      major(after),
    );
    expect(after.text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
  });
});

describe('GET /metrics with MAILROOM_METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789';
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ metricsToken: token });
  });
  afterAll(async () => server.stop());

  it('answers 401 without the token or with a wrong one, 200 with it', async () => {
    const missing = await scrape(server);
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.text).error.code).toBe('unauthorized');
    expect((await scrape(server, server.key)).status).toBe(401);
    expect((await scrape(server, `${token}x`)).status).toBe(401);
    const ok = await scrape(server, token);
    expect(ok.status).toBe(200);
    expect(ok.samples.has('mailroom_messages_received_total')).toBe(true);
    // The rest of the server does not change.
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  });
});
