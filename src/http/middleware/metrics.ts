import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';

/** Upper bounds of the latency histogram, in seconds (1 ms to 2.5 s). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;

/** The label of requests no route matched: one series however many paths are probed. */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface RequestSeries {
  method: string;
  route: string;
  status: string;
  count: number;
}

export interface LatencySeries {
  method: string;
  route: string;
  /** Observations at or under each bound of LATENCY_BUCKETS (cumulative, as Prometheus wants). */
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * HTTP request counts and latencies since this server started, kept in memory. Labels are the
 * matched route pattern, never the raw path, so the number of series stays bounded. Latency is
 * not split by status, which would multiply the histogram series for little insight.
 */
export class HttpMetrics {
  private readonly requests = new Map<string, RequestSeries>();
  private readonly latencies = new Map<string, LatencySeries>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : 'OTHER';
    const requestKey = `${m} ${route} ${status}`;
    const request = this.requests.get(requestKey);
    if (request) request.count += 1;
    else this.requests.set(requestKey, { method: m, route, status: String(status), count: 1 });

    const latencyKey = `${m} ${route}`;
    let latency = this.latencies.get(latencyKey);
    if (!latency) {
      latency = { method: m, route, buckets: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.latencies.set(latencyKey, latency);
    }
    observeInto(latency, LATENCY_BUCKETS, seconds);
  }

  requestSeries(): RequestSeries[] {
    return [...this.requests.values()];
  }

  latencySeries(): LatencySeries[] {
    return [...this.latencies.values()];
  }
}

/** Counts one observation of `seconds` into a histogram's cumulative buckets (one per bound), sum and count. */
export function observeInto(
  histogram: { buckets: number[]; sum: number; count: number },
  bounds: readonly number[],
  seconds: number,
): void {
  bounds.forEach((bound, i) => {
    if (seconds <= bound) histogram.buckets[i]! += 1;
  });
  histogram.sum += seconds;
  histogram.count += 1;
}

/**
 * The pattern of the route that handled the request (`/api/v1/emails/:id`). Middleware is
 * registered for every method (`ALL`), so the last route with a concrete method is the endpoint,
 * also when middleware before it answered (a 401 still counts against the route it was for).
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]!;
    if (route.method !== 'ALL') return route.path;
  }
  return UNMATCHED_ROUTE;
}

/** Runs the rest of the chain, then hands `done` the status (500 if it threw) and the seconds it took. */
export function afterResponse<C extends Context>(
  done: (c: C, status: number, seconds: number) => void,
): (c: C, next: () => Promise<void>) => Promise<void> {
  return async (c, next) => {
    const started = performance.now();
    let status = 500;
    try {
      await next();
      status = c.res.status;
    } finally {
      done(c, status, (performance.now() - started) / 1000);
    }
  };
}

/** Records every request; registered first on the root app so the latency covers all the rest. */
export function recordHttpMetrics(metrics: HttpMetrics): MiddlewareHandler {
  return afterResponse((c, status, seconds) => metrics.observe(c.req.method, routeLabel(c), status, seconds));
}
