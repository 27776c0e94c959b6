import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { startPostgres } from '../helpers/postgres.js';
import type { Postgres } from '../helpers/postgres.js';
import { rawMessage } from '../helpers/smtp-session.js';
import { openStream } from '../helpers/sse-client.js';
import { runIngest } from './ingest.js';
import { percentiles } from './list.js';
import type { Latency } from './list.js';
import { cpuMs } from './memory.js';
import { startMailroom } from './processes.js';
import type { Running } from './processes.js';
import { SmtpLoadConnection } from './smtp-client.js';
import { longPoll } from './wait.js';

const MESSAGES = Number(process.env.BENCH_NODES_MESSAGES ?? 3000);
const EVENTS = Number(process.env.BENCH_NODES_EVENTS ?? 200);
const KEY = `mr_live_${'b'.repeat(40)}`;
const INBOX = 'agent@nodes.bench';

export interface NodesIngest {
  nodes: number;
  perSecond: number;
  /** CPU time per message of all the nodes together, and of PostgreSQL (postmaster and backends). */
  nodesCpuMs: number;
  postgresCpuMs: number;
  /** Share of the machine's CPU time busy during the run (every process, other sessions' too). */
  machineBusy: number;
  /** Transactions committed on the database per message (the group commits, the event tails' reads...). */
  commits: number;
}

/** `count` `mailroom serve` processes on one fresh database of `postgres`, started one after another. */
async function startNodes(postgres: Postgres, url: string, count: number): Promise<Running[]> {
  const nodes: Running[] = [];
  for (let i = 1; i <= count; i++) {
    nodes.push(
      await startMailroom({
        MAILROOM_DATABASE_URL: url,
        MAILROOM_SECRET: 'b'.repeat(64),
        MAILROOM_DOMAIN: 'nodes.bench',
        MAILROOM_BOOTSTRAP_KEY: KEY,
        MAILROOM_NODE_ID: `bench-${i}`,
      }),
    );
  }
  return nodes;
}

/** CPU time of the postmaster, its live children, and its children that have ended. */
function postgresCpuMs(postgres: Postgres): number {
  const postmaster = Number(
    fs.readFileSync(path.join(postgres.dir, 'data/postmaster.pid'), 'utf8').split('\n')[0],
  );
  const fields = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const own = fields(postmaster);
  let ms = (Number(own[13]) + Number(own[14])) * 10 + cpuMs(postmaster);
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (Number(fields(Number(name))[1]) === postmaster) ms += cpuMs(Number(name));
    } catch {
      // ended meanwhile: counted in the postmaster's children's time
    }
  }
  return ms;
}

/** Busy and total clock ticks of the whole machine (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  return { busy: total - cpu[3]! - cpu[4]!, total };
}

/** The same `MESSAGES` over 20 connections spread over 1, 2 and 3 nodes, each case on a fresh database. */
async function ingestOn(
  postgres: Postgres,
  count: number,
): Promise<{ result: NodesIngest; nodes: Running[] }> {
  const url = await postgres.createDatabase();
  const nodes = await startNodes(postgres, url, count);
  const stats = new pg.Client({ connectionString: url });
  await stats.connect();
  const commits = async () => {
    const { rows } = await stats.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]!.n);
  };
  const commitsBefore = await commits();
  const cpu = () => nodes.reduce((sum, n) => sum + cpuMs(n.process.pid!), 0);
  const [nodesBefore, pgBefore, machineBefore] = [cpu(), postgresCpuMs(postgres), machineTicks()];
  const run = await runIngest(
    nodes.map((n) => n.smtpPort),
    INBOX,
    MESSAGES,
  );
  const [nodesAfter, pgAfter, machineAfter] = [cpu(), postgresCpuMs(postgres), machineTicks()];
  // The statistics collector reports a backend's counts when it goes idle, within a second.
  await new Promise((r) => setTimeout(r, 1500));
  await stats.query('SELECT pg_stat_clear_snapshot()');
  const committed = (await commits()) - commitsBefore;
  await stats.end();
  return {
    nodes,
    result: {
      nodes: count,
      perSecond: run.perSecond,
      nodesCpuMs: (nodesAfter - nodesBefore) / MESSAGES,
      postgresCpuMs: (pgAfter - pgBefore) / MESSAGES,
      machineBusy: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
      commits: committed / MESSAGES,
    },
  };
}

/**
 * Mail sent into node A over SMTP, `EVENTS` times, one at a time: from A's 250 (the commit) to
 * the answer of a long-poll parked on node B, and to the event on an SSE stream held open on B.
 */
async function eventLatency([a, b]: Running[]): Promise<{ waiter: Latency; stream: Latency }> {
  const smtp = await SmtpLoadConnection.open(a!.smtpPort);
  const stream = await openStream(
    { baseUrl: `http://127.0.0.1:${b!.httpPort}`, key: KEY },
    `?account=${INBOX}`,
  );
  const agent = new http.Agent({ keepAlive: true });
  const waiter: number[] = [];
  const streamed: number[] = [];
  try {
    for (let i = 0; i < EVENTS; i++) {
      const subject = `event-${i}`;
      const url = `http://127.0.0.1:${b!.httpPort}/api/v1/emails?account=${INBOX}&wait=60&subject=${subject}`;
      const poll = longPoll(agent, url, KEY);
      await poll.sent;
      // Written is not yet parked: give B time to make its first look and park the wait.
      await new Promise((r) => setTimeout(r, 250));
      // Read from before the send, so the time taken is the event's arrival, not when it was looked at.
      const event = (async () => {
        for (;;) {
          const next = await stream.nextEvent();
          if (next.json.data?.email?.subject === subject) return performance.now();
        }
      })();
      const raw = Buffer.from(rawMessage({ from: 'bench@example.com', to: INBOX, subject }));
      await smtp.send('bench@example.com', INBOX, raw);
      const accepted = performance.now();
      waiter.push((await poll.answered) - accepted);
      streamed.push((await event) - accepted);
    }
  } finally {
    stream.close();
    agent.destroy();
    await smtp.close();
  }
  return { waiter: percentiles(waiter), stream: percentiles(streamed) };
}

/**
 * Ingest with 1, 2 and 3 `mailroom serve` processes on one durable PostgreSQL, and the latency of
 * an event from one node to a waiter and a stream on another (docs/decisions/several-nodes.md).
 */
export async function runNodes(): Promise<{
  ingest: NodesIngest[];
  waiter: Latency;
  stream: Latency;
  messages: number;
}> {
  const postgres = await startPostgres({ durable: true });
  const ingest: NodesIngest[] = [];
  try {
    let latency: { waiter: Latency; stream: Latency } | undefined;
    for (const count of [1, 2, 3]) {
      const { result, nodes } = await ingestOn(postgres, count);
      ingest.push(result);
      try {
        if (count === 3) latency = await eventLatency(nodes);
      } finally {
        await Promise.all(nodes.map((n) => n.stop()));
      }
    }
    return { ingest, ...latency!, messages: MESSAGES };
  } finally {
    await postgres.stop();
  }
}
