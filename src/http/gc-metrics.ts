import { PerformanceObserver, constants } from 'node:perf_hooks';
import type { PerformanceEntry } from 'node:perf_hooks';
import { observeInto } from './middleware/metrics.js';

/** Upper bounds of the pause histogram, in seconds (Prometheus's Node client uses the same). */
export const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5] as const;

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

export interface GcSeries {
  kind: string;
  /** Pauses at or under each bound of GC_BUCKETS (cumulative). */
  buckets: number[];
  sum: number;
  count: number;
}

let series: Map<string, GcSeries> | undefined;

/**
 * The main thread's garbage-collection pauses since it first asked, by kind. A full collection
 * ('major') stops every request for a few milliseconds: the list's p99 followed them, so an
 * operator can see how often they come. One observer per thread, started on the first call.
 */
export function gcPauses(): GcSeries[] {
  if (!series) {
    const observed = (series = new Map());
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) record(observed, entry);
    }).observe({ entryTypes: ['gc'] });
  }
  return [...series.values()];
}

function record(observed: Map<string, GcSeries>, entry: PerformanceEntry): void {
  const kind =
    KINDS[(entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
  let s = observed.get(kind);
  if (!s) observed.set(kind, (s = { kind, buckets: GC_BUCKETS.map(() => 0), sum: 0, count: 0 }));
  observeInto(s, GC_BUCKETS, entry.duration / 1000);
}
