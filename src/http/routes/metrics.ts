import crypto from 'node:crypto';
import type { Context, Hono } from 'hono';
import { storedMetrics } from '../../mailbox/operations/metrics.js';
import type { StoredCounts } from '../../store/metrics.js';
import { nodeIdOf } from '../../config.js';
import { VERSION } from '../../version.js';
import type { AppEnv } from '../context.js';
import { sendError } from '../errors.js';
import { GC_BUCKETS, gcPauses } from '../gc-metrics.js';
import { LATENCY_BUCKETS } from '../middleware/metrics.js';
import type { HttpMetrics } from '../middleware/metrics.js';

/** Prometheus text exposition format 0.0.4. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels = Record<string, string>;
interface Sample {
  /** Appended to the family name: `_bucket`, `_sum`, `_count` for histograms. */
  suffix?: string;
  labels?: Labels;
  value: number;
}

/**
 * `GET /metrics` on the root app, beside /healthz. Open unless MAILROOM_METRICS_TOKEN is set,
 * then it wants `Authorization: Bearer <token>`.
 */
export function registerMetricsRoute(app: Hono<AppEnv>, http: HttpMetrics): void {
  gcPauses(); // observed from the start, not from the first scrape
  app.get('/metrics', async (c) => {
    if (!authorised(c)) {
      c.header('WWW-Authenticate', 'Bearer');
      return sendError(c, 'unauthorized', 'a valid metrics token is required: Authorization: Bearer <token>');
    }
    const node = { node: nodeIdOf(c.var.deps.config), version: VERSION };
    const text = renderMetrics(await storedMetrics(c.var.deps), http, node);
    return c.body(text, 200, { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' });
  });
}

function authorised(c: Context<AppEnv>): boolean {
  const token = c.var.deps.config.metricsToken;
  if (!token) return true;
  const presented = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
  // Digests have equal length, so the comparison takes the same time whatever was presented.
  return crypto.timingSafeEqual(sha256(presented), sha256(token));
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest();

/**
 * `node` names the node that answered (MAILROOM_NODE_ID) in mailroom_node_info: the counts of
 * stored things are the database's, the same on every node; the http_ and process_ families are
 * this node's own.
 */
export function renderMetrics(stored: StoredCounts, http: HttpMetrics, node: Labels): string {
  const { deliveries, webhookDeliveries: hooks } = stored;
  const lines = [
    ...family('mailroom_node_info', 'gauge', 'The node that answered this scrape, and its version.', [
      { labels: node, value: 1 },
    ]),
    ...family(
      'mailroom_messages_received_total',
      'counter',
      'Messages filed into an inbox, one per receiving inbox (email.received events).',
      [{ value: stored.events['email.received'] }],
    ),
    ...family('mailroom_messages_sent_total', 'counter', 'Messages sent from an inbox (email.sent events).', [
      { value: stored.events['email.sent'] },
    ]),
    ...family(
      'mailroom_messages_bounced_total',
      'counter',
      'Sent messages that failed for good for a recipient (email.bounced events).',
      [{ value: stored.events['email.bounced'] }],
    ),
    ...family('mailroom_messages_stored', 'gauge', 'Messages stored in all folders of all inboxes.', [
      { value: stored.messages },
    ]),
    ...family(
      'mailroom_outbound_deliveries',
      'gauge',
      'Stored outbound recipient deliveries by status.',
      byLabel('status', deliveries),
    ),
    ...family(
      'mailroom_outbound_queue_depth',
      'gauge',
      'Outbound recipient deliveries waiting for an attempt (queued or deferred).',
      [{ value: deliveries.queued + deliveries.deferred }],
    ),
    ...family(
      'mailroom_webhook_deliveries',
      'gauge',
      'Stored webhook deliveries (one per event and webhook) by status.',
      byLabel('status', hooks),
    ),
    ...family(
      'mailroom_webhook_queue_depth',
      'gauge',
      'Webhook deliveries waiting for an attempt (pending).',
      [{ value: hooks.pending }],
    ),
    ...family(
      'mailroom_webhook_attempts_total',
      'counter',
      'Webhook POSTs by result: succeeded is a 2xx answer, failed anything else.',
      byLabel('result', stored.webhookAttempts),
    ),
    ...family(
      'mailroom_screening_total',
      'counter',
      'Inbound mail screening by outcome: rejected (rspamd or DMARC 550), tempfail (451), spam (filed into Spam), virus (554), review (built-in screening).',
      byLabel('outcome', stored.screening),
    ),
    ...httpFamilies(http),
    ...processFamilies(),
  ];
  return `${lines.join('\n')}\n`;
}

/** The process's own, under the names Prometheus's client libraries give them. */
function processFamilies(): string[] {
  const cpu = process.cpuUsage();
  const heap = process.memoryUsage();
  return [
    ...family('process_cpu_seconds_total', 'counter', 'User and system CPU time spent, in seconds.', [
      { value: (cpu.user + cpu.system) / 1e6 },
    ]),
    ...family('process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', [
      { value: heap.rss },
    ]),
    ...family(
      'process_start_time_seconds',
      'gauge',
      'Start time of the process since the Unix epoch, in seconds.',
      [{ value: Math.round(Date.now() / 1000 - process.uptime()) }],
    ),
    ...family('nodejs_heap_size_used_bytes', 'gauge', "V8's heap in use, in bytes.", [
      { value: heap.heapUsed },
    ]),
    ...family(
      'nodejs_external_memory_bytes',
      'gauge',
      'Memory of Buffers and other objects outside the V8 heap, in bytes.',
      [{ value: heap.external }],
    ),
    ...family(
      'nodejs_gc_duration_seconds',
      'histogram',
      "The main thread's garbage-collection pauses by kind (minor, major, incremental, weakcb), in seconds.",
      gcPauses().flatMap((s) => histogramSamples({ kind: s.kind }, GC_BUCKETS, s)),
    ),
  ];
}

function httpFamilies(http: HttpMetrics): string[] {
  const byRoute = <T extends { route: string; method: string }>(a: T, b: T) =>
    a.route.localeCompare(b.route) || a.method.localeCompare(b.method);
  const requests = http
    .requestSeries()
    .sort((a, b) => byRoute(a, b) || a.status.localeCompare(b.status))
    .map((s) => ({ labels: { method: s.method, route: s.route, status: s.status }, value: s.count }));
  const latency = http
    .latencySeries()
    .sort(byRoute)
    .flatMap((s) => histogramSamples({ method: s.method, route: s.route }, LATENCY_BUCKETS, s));
  return [
    ...family(
      'mailroom_http_requests_total',
      'counter',
      'HTTP requests by method, route pattern and status since start.',
      requests,
    ),
    ...family(
      'mailroom_http_request_duration_seconds',
      'histogram',
      'HTTP request latency by method and route pattern since start.',
      latency,
    ),
  ];
}

function byLabel(name: string, counts: Record<string, number>): Sample[] {
  return Object.entries(counts).map(([value, count]) => ({ labels: { [name]: value }, value: count }));
}

/** One series of a histogram: a `_bucket` sample per bound (cumulative counts), then `_sum` and `_count`. */
function histogramSamples(
  labels: Labels,
  bounds: readonly number[],
  series: { buckets: number[]; sum: number; count: number },
): Sample[] {
  return [
    ...bounds.map((bound, i) => ({
      suffix: '_bucket',
      labels: { ...labels, le: String(bound) },
      value: series.buckets[i] ?? 0,
    })),
    { suffix: '_bucket', labels: { ...labels, le: '+Inf' }, value: series.count },
    { suffix: '_sum', labels, value: series.sum },
    { suffix: '_count', labels, value: series.count },
  ];
}

function family(
  name: string,
  type: 'counter' | 'gauge' | 'histogram',
  help: string,
  samples: Sample[],
): string[] {
  return [
    `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`,
    `# TYPE ${name} ${type}`,
    ...samples.map((s) => `${name}${s.suffix ?? ''}${labelText(s.labels)} ${s.value}`),
  ];
}

function labelText(labels: Labels | undefined): string {
  if (!labels) return '';
  const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  return `{${Object.entries(labels)
    .map(([k, v]) => `${k}="${escape(v)}"`)
    .join(',')}}`;
}
