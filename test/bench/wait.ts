import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { createMailroom } from '../../src/mailroom.js';
import { percentiles } from './list.js';
import type { Latency } from './list.js';
import { startMailroom } from './processes.js';
import { SmtpLoadConnection } from './smtp-client.js';

const WAITERS = Number(process.env.BENCH_WAITERS ?? 1000);
const ROUNDS = Number(process.env.BENCH_WAIT_ROUNDS ?? 5);

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** One long-poll: `sent` once the request is written, `answered` with the time its answer arrived. */
export function longPoll(
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
  // All the waiters share the bootstrap key.
  const server = await startMailroom({ MAILROOM_MAX_WAITS_PER_KEY: String(WAITERS) });
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

const IN_PROCESS_DELIVERIES = Number(process.env.BENCH_WAIT_DELIVERIES ?? 300);

/**
 * The in-process `mailroom.waitForEmail` as a test suite uses it: a server in this process (on
 * files, default settings), one wait parked per delivery, then one message over SMTP on a
 * persistent connection, `IN_PROCESS_DELIVERIES` times. Two times per delivery: from the SMTP
 * 250 (the message committed) to the promise resolving with the email read whole, negative when
 * it resolved before the 250 reached the client; and from the start of the send.
 */
export async function runInProcessWait(): Promise<{
  afterAccepted: Latency;
  afterSendStart: Latency;
  resolvedFirst: number;
  deliveries: number;
}> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-bench-wait-'));
  const mailroom = createMailroom({
    env: {},
    dataDir,
    httpPort: 0,
    smtpPort: 0,
    verifyAuth: false,
    logLevel: 'silent',
  });
  await mailroom.start();
  const account = mailroom.bootstrap!.inbox;
  const smtp = await SmtpLoadConnection.open(mailroom.smtp.port);
  const afterAccepted: number[] = [];
  const afterSendStart: number[] = [];
  try {
    for (let i = 0; i < IN_PROCESS_DELIVERIES; i++) {
      const subject = `delivery-${i}`;
      const resolved = mailroom
        .waitForEmail({ account, subject, timeoutMs: 10_000 })
        .then(() => performance.now());
      // Parked before the send, so what is timed is the wake on commit, not a first look.
      while ((mailroom.deps.waiters?.size ?? 0) === 0) await new Promise((r) => setImmediate(r));
      const raw = Buffer.from(
        `From: bench@example.com\r\nTo: ${account}\r\nSubject: ${subject}\r\n` +
          `Date: ${new Date().toUTCString()}\r\nMessage-ID: <${subject}@bench>\r\n\r\nwake up\r\n`,
      );
      const started = performance.now();
      await smtp.send('bench@example.com', account, raw);
      const accepted = performance.now();
      const at = await resolved;
      afterAccepted.push(at - accepted);
      afterSendStart.push(at - started);
    }
  } finally {
    await smtp.close();
    await mailroom.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return {
    afterAccepted: percentiles(afterAccepted),
    afterSendStart: percentiles(afterSendStart),
    resolvedFirst: afterAccepted.filter((ms) => ms < 0).length,
    deliveries: IN_PROCESS_DELIVERIES,
  };
}
