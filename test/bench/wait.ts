import fs from 'node:fs';
import http from 'node:http';
import nodemailer from 'nodemailer';
import { percentiles } from './list.js';
import type { Latency } from './list.js';
import { startMailroom } from './processes.js';

const WAITERS = Number(process.env.BENCH_WAITERS ?? 1000);
const ROUNDS = Number(process.env.BENCH_WAIT_ROUNDS ?? 5);

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** One long-poll: `sent` once the request is written, `answered` with the time its answer arrived. */
function longPoll(
  agent: http.Agent,
  url: string,
  key: string,
): { sent: Promise<void>; answered: Promise<number> } {
  let sent!: () => void;
  const written = new Promise<void>((resolve) => (sent = resolve));
  const answered = new Promise<number>((resolve, reject) => {
    const req = http.get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now()));
    });
    req.on('finish', sent);
    req.on('error', reject);
  });
  return { sent: written, answered };
}

/**
 * `WAITERS` requests long-poll one inbox (`GET /emails?wait=60`); one message is sent over SMTP;
 * the time from the start of that SMTP send to each waiter's answer, over `ROUNDS` rounds.
 * Also the server's RSS with the waiters held, against its RSS idle.
 */
export async function runWait(): Promise<{
  latency: Latency;
  waiters: number;
  rounds: number;
  idleRssMb: number;
  waitingRssMb: number;
}> {
  const server = await startMailroom();
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const pid = server.process.pid!;
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, ignoreTLS: true });
  const samples: number[] = [];
  let idleRssMb = rssMb(pid);
  let waitingRssMb = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Only mail after this round's newest counts: the waiters ask for uids above it.
      const url = `http://127.0.0.1:${server.httpPort}/api/v1/emails?account=agent@mailroom.test&wait=60&subject=round-${round}`;
      if (round === 0) idleRssMb = rssMb(pid);
      const polls = Array.from({ length: WAITERS }, () => longPoll(agent, url, server.apiKey));
      await Promise.all(polls.map((p) => p.sent));
      // Written is not yet parked: give the server time to take them all in.
      await new Promise((r) => setTimeout(r, 5000));
      const answers = polls.map((p) => p.answered);
      waitingRssMb = Math.max(waitingRssMb, rssMb(pid));
      const sent = performance.now();
      await transport.sendMail({
        from: 'bench@example.com',
        to: 'agent@mailroom.test',
        subject: `round-${round}`,
        text: 'wake up',
      });
      for (const at of await Promise.all(answers)) samples.push(at - sent);
    }
  } finally {
    transport.close();
    agent.destroy();
    await server.stop();
  }
  return { latency: percentiles(samples), waiters: WAITERS, rounds: ROUNDS, idleRssMb, waitingRssMb };
}
