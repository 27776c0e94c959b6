import fs from 'node:fs';
import { runIngest } from './ingest.js';
import { timeRequests } from './list.js';
import type { Latency } from './list.js';
import { startMailroom } from './processes.js';

/** Messages received over SMTP per round; the target is flat memory from the first round to the second. */
const ROUND_MESSAGES = Number(process.env.BENCH_MEMORY_MESSAGES ?? 100_000);
/** runIngest composes its messages before it starts the clock: batches keep the client small. */
const BATCH = 10_000;
const INBOX = 'agent@mailroom.test';
/** Past src/mailbox/ingest/collect-when-idle.ts's quiet window and the timer's phase. */
const QUIET_MS = 25_000;

export interface MemoryRound {
  messages: number;
  rssMb: number;
  /** Settled again after 25 s without traffic: each thread has collected once it went quiet. */
  quietRssMb: number;
  peakRssMb: number;
  heapUsedMb: number;
  externalMb: number;
  perSecond: number;
  /** The server's CPU time (all its threads, user and system) per message received, in ms. */
  cpuMsPerMessage: number;
  firstPage: Latency;
  search: Latency;
}

/**
 * Memory of `mailroom serve` (default settings: its parse and ingest threads count, they are in
 * the process) after each round of mail received over SMTP and listed over HTTP: the resident
 * set once it holds still, the peak, and the main thread's V8 heap and external memory as
 * /metrics reports them.
 */
export async function runMemory(
  env: Record<string, string> = {},
  rounds = 2,
  nodeArgs: string[] = [],
  /** The checkout whose build runs (`--baseline DIR`: an earlier build, in turn with this one). */
  checkout?: string,
): Promise<MemoryRound[]> {
  const server = await startMailroom(env, nodeArgs, checkout);
  const base = `http://127.0.0.1:${server.httpPort}`;
  const results: MemoryRound[] = [];
  try {
    let received = 0;
    for (let round = 0; round < rounds; round++) {
      let seconds = 0;
      const cpuBefore = cpuMs(server.process.pid!);
      for (let sent = 0; sent < ROUND_MESSAGES; sent += BATCH) {
        const batch = Math.min(BATCH, ROUND_MESSAGES - sent);
        seconds += (await runIngest(server.smtpPort, INBOX, batch)).seconds;
      }
      const cpuMsPerMessage = (cpuMs(server.process.pid!) - cpuBefore) / ROUND_MESSAGES;
      received += ROUND_MESSAGES;
      const list = `${base}/api/v1/emails?account=${INBOX}&limit=50`;
      const firstPage = await timeRequests(() => list, server.apiKey, 300);
      const search = await timeRequests(
        (i) => `${list}&q=${['ordinary', 'number', 'search'][i % 3]}`,
        server.apiKey,
        100,
        20,
      );
      const rssMb = await settledRss(server.process.pid!);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      await new Promise((r) => setTimeout(r, QUIET_MS));
      const quietRssMb = await settledRss(server.process.pid!);
      results.push({
        messages: received,
        rssMb,
        quietRssMb,
        peakRssMb: statusMb(server.process.pid!, 'VmHWM'),
        heapUsedMb: metric(metrics, 'nodejs_heap_size_used_bytes') / 2 ** 20,
        externalMb: metric(metrics, 'nodejs_external_memory_bytes') / 2 ** 20,
        perSecond: ROUND_MESSAGES / seconds,
        cpuMsPerMessage,
        firstPage,
        search,
      });
    }
  } finally {
    await server.stop();
  }
  return results;
}

function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(field))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

/** CPU time a process has used, all threads, user and system (/proc/PID/stat, in clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The resident set once two readings a second apart differ by under 1 MB (at most 30 s). */
async function settledRss(pid: number): Promise<number> {
  let last = statusMb(pid, 'VmRSS');
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = statusMb(pid, 'VmRSS');
    if (Math.abs(now - last) < 1) return now;
    last = now;
  }
  return last;
}

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}
