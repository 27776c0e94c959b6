/**
 * `npm run bench -- hostile`: an ordinary sender's latency with and without an attack running
 * beside it, and the server's peak memory. The attackers come from other loopback addresses
 * (127.0.0.2 and up), as distinct hosts would, so per-IP limits treat them as strangers.
 */
import fs from 'node:fs';
import http from 'node:http';
import { openSmtp } from '../helpers/smtp-session.js';
import { sampleBody } from './ingest.js';
import { percentiles } from './list.js';
import type { Latency } from './list.js';
import { startMailroom } from './processes.js';

const BASELINE_MS = Number(process.env.BENCH_HOSTILE_BASELINE_MS ?? 10_000);
const ATTACK_MS = Number(process.env.BENCH_HOSTILE_ATTACK_MS ?? 30_000);
const SETTLE_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const BIG_MESSAGE_BYTES = 24 * 1024 * 1024;
const BIG_PARALLEL = 40;
const SLOW_CONNECTIONS = 60;
/** Longer than the default command deadline, so a slow sender is seen being cut off. */
const SLOW_SENDER_MS = 75_000;

export interface HostileResult {
  smtp: { baseline: Latency; attacked: Latency; failedBaseline: number; failedAttacked: number };
  health: { baseline: Latency; attacked: Latency; failedBaseline: number; failedAttacked: number };
  peakRssMb: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  attacks: Record<string, Record<string, number>>;
}

const crlf = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

/** The hostile shapes of issue 10, each a whole message (CRLF line ends, nothing to dot-stuff). */
export function hostileMessages(to: string): Record<string, Buffer> {
  const head = (subject: string, extra: string[] = []) => [
    'From: attacker@example.net',
    `To: ${to}`,
    `Subject: ${subject}`,
    'MIME-Version: 1.0',
    ...extra,
  ];
  const cteLines = crlf(Array.from({ length: 8000 }, () => 'Content-Transfer-Encoding: base64'));
  const parts = Array.from({ length: 2000 }, (_, i) =>
    crlf([
      '--P',
      'Content-Type: application/octet-stream',
      `Content-Disposition: attachment; filename="p${i}.bin"`,
      'Content-Transfer-Encoding: base64',
      '',
      'AAAA',
    ]),
  ).join('');
  const addresses = Array.from({ length: 100_000 }, (_, i) => `r${i}@example.org`).join(',\r\n ');
  return {
    'repeated CTE lines (300 KB)': Buffer.from(
      crlf([...head('cte', ['Content-Type: text/plain']), '']) + cteLines,
    ),
    '2,000 MIME parts': Buffer.from(
      crlf([...head('parts', ['Content-Type: multipart/mixed; boundary="P"']), '']) + parts + '--P--\r\n',
    ),
    'To: of 100,000 addresses': Buffer.from(
      crlf(['From: attacker@example.net', `To: ${to},\r\n ${addresses}`, 'Subject: to-list', '', 'hello']),
    ),
  };
}

/** A message of `bytes` as it goes on the wire after DATA: base64 lines, then the terminator. */
function bigWire(to: string, bytes: number): Buffer {
  const header = crlf([
    'From: attacker@example.net',
    `To: ${to}`,
    'Subject: big',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="B"',
    '',
    '--B',
    'Content-Type: application/octet-stream; name="big.bin"',
    'Content-Transfer-Encoding: base64',
    '',
  ]);
  const line = `${'QUJD'.repeat(19)}\r\n`;
  const body = line.repeat(Math.floor((bytes - header.length) / line.length));
  return Buffer.from(`${header}${body}--B--\r\n.\r\n`);
}

function withTimeout<T, F>(promise: Promise<T>, fallback: F, ms = REQUEST_TIMEOUT_MS): Promise<T | F> {
  return Promise.race([promise, new Promise<F>((r) => setTimeout(() => r(fallback), ms).unref())]);
}

const count = (tally: Record<string, number>, key: string | number) => {
  tally[key] = (tally[key] ?? 0) + 1;
};

function rssOf(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** The ordinary sender: one message every 50 ms on one connection, and /healthz every 100 ms. */
function ordinaryTraffic(smtpPort: number, httpPort: number, to: string) {
  let phase: 'baseline' | 'attacked' | 'done' = 'baseline';
  const samples = { baseline: [] as number[], attacked: [] as number[] };
  const health = { baseline: [] as number[], attacked: [] as number[] };
  const failed = { smtp: { baseline: 0, attacked: 0 }, health: { baseline: 0, attacked: 0 } };
  const message = Buffer.from(
    crlf(['From: friend@example.com', `To: ${to}`, 'Subject: ordinary', '', sampleBody(1)]),
  );

  async function sender() {
    while (phase !== 'done') {
      const at = phase;
      const started = performance.now();
      const reply = await withTimeout(
        (async () => {
          const session = await openSmtp(smtpPort);
          const result = await session.send('friend@example.com', [to], message);
          await session.close();
          return result.data ?? { code: 0, text: '' };
        })(),
        { code: 0, text: 'timeout' },
      );
      if (reply.code === 250) samples[at].push(performance.now() - started);
      else failed.smtp[at] += 1;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function prober() {
    while (phase !== 'done') {
      const at = phase;
      const started = performance.now();
      const ok = await fetch(`http://127.0.0.1:${httpPort}/healthz`, {
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) health[at].push(performance.now() - started);
      else failed.health[at] += 1;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const running = Promise.all([sender(), prober()]);
  return {
    attack: () => (phase = 'attacked'),
    async stop() {
      phase = 'done';
      await running;
      return { samples, health, failed };
    },
  };
}

/** Each attacker loops until `until`; every one is bounded in count and time. */
function attackers(smtpPort: number, httpPort: number, to: string, apiKey: string, until: number) {
  const tallies: Record<string, Record<string, number>> = {};
  const tally = (name: string) => (tallies[name] ??= {});

  async function shapes() {
    const messages = hostileMessages(to);
    for (let round = 0; round < 50 && Date.now() < until; round++) {
      for (const [name, raw] of Object.entries(messages)) {
        if (Date.now() >= until) break;
        const reply = await withTimeout(
          (async () => {
            const session = await openSmtp(smtpPort, '127.0.0.1', '127.0.0.2');
            const result = await session.send('attacker@example.net', [to], raw);
            await session.close();
            return result.data?.code ?? result.mail.code;
          })(),
          'timeout' as const,
        );
        count(tally(name), reply);
      }
    }
  }

  async function bigMessages() {
    const wire = bigWire(to, BIG_MESSAGE_BYTES);
    for (let round = 0; round < 3 && Date.now() < until; round++) {
      await Promise.all(
        Array.from({ length: BIG_PARALLEL }, async (_, i) => {
          const reply = await withTimeout(
            (async () => {
              const session = await openSmtp(smtpPort, '127.0.0.1', `127.0.1.${1 + (i % 200)}`);
              await session.command('EHLO big.example');
              const mail = await session.command(`MAIL FROM:<attacker@example.net> SIZE=${wire.length}`);
              if (mail.code !== 250) return (await session.close(), mail.code);
              await session.command(`RCPT TO:<${to}>`);
              const data = await session.command('DATA');
              const final = data.code === 354 ? await session.messagePrepared(wire) : data;
              await session.close();
              return final.code;
            })(),
            'timeout' as const,
            120_000,
          );
          count(tally(`${BIG_PARALLEL} parallel 24 MB messages`), reply);
        }),
      );
    }
  }

  /** Slow-loris: connections that send a byte every 2 s and never finish a command. */
  async function slowSenders() {
    const stopAt = Date.now() + SLOW_SENDER_MS;
    await Promise.all(
      Array.from({ length: SLOW_CONNECTIONS }, async (_, i) => {
        const session = await openSmtp(smtpPort, '127.0.0.1', `127.0.2.${1 + (i % 4)}`).catch(() => null);
        if (!session || session.greeting.code !== 220) return count(tally('slow senders'), 'refused');
        let cut = false;
        void session.closed.then(() => (cut = true));
        await session.command('EHLO slow.example');
        const trickle = 'MAIL FROM:<slow@example.net>';
        for (let k = 0; !cut && Date.now() < stopAt; k = (k + 1) % trickle.length) {
          await new Promise((r) => setTimeout(r, 2000));
          if (!cut) session.write(trickle[k]!);
        }
        count(tally('slow senders'), cut ? 'cut off by the server' : 'still open after 75 s');
        await session.close();
      }),
    );
  }

  async function rcptProbe() {
    const session = await openSmtp(smtpPort, '127.0.0.1', '127.0.0.3');
    await session.command('EHLO probe.example');
    await session.command('MAIL FROM:<probe@example.net>');
    const domain = to.split('@')[1];
    for (let i = 0; i < 3000 && Date.now() < until; i++) {
      const reply = await session.command(`RCPT TO:<nobody${i}@${domain}>`);
      count(tally('RCPT probe (3,000 unknown users)'), reply.code);
      if (reply.code === 0 || reply.code === 421) break;
    }
    await session.close();
  }

  async function chunkedPost() {
    const code = await new Promise<string>((resolve) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: httpPort,
          method: 'POST',
          path: '/api/v1/emails/send',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(String(res.statusCode));
        },
      );
      req.on('error', () => resolve('connection closed'));
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 400 && !req.destroyed) {
          sent += 1;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      req.write('{"text":"');
      pump();
      setTimeout(() => (req.destroy(), resolve('timeout')), REQUEST_TIMEOUT_MS).unref();
    });
    count(tally('400 MB chunked POST'), code);
  }

  return {
    tallies,
    run: () => Promise.all([shapes(), bigMessages(), slowSenders(), rcptProbe(), chunkedPost()]),
  };
}

export async function runHostile(): Promise<HostileResult> {
  // The per-IP limits a real install holds outside senders to: the attack comes from 127.0.0.1,
  // which MAILROOM_SMTP_TRUSTED_NETWORKS leaves out of them by default.
  const server = await startMailroom({ MAILROOM_SMTP_TRUSTED_NETWORKS: 'none' });
  const pid = server.process.pid!;
  const inbox = 'agent@mailroom.test';
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid).rss);
    } catch {
      /* process gone */
    }
  }, 100);
  try {
    const traffic = ordinaryTraffic(server.smtpPort, server.httpPort, inbox);
    await new Promise((r) => setTimeout(r, BASELINE_MS));
    const rssBeforeMb = rssOf(pid).rss;
    traffic.attack();
    const attack = attackers(server.smtpPort, server.httpPort, inbox, server.apiKey, Date.now() + ATTACK_MS);
    await attack.run();
    const { samples, health, failed } = await traffic.stop();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const rssAfterMb = rssOf(pid).rss;
    return {
      smtp: {
        baseline: percentiles(samples.baseline),
        attacked: percentiles(samples.attacked),
        failedBaseline: failed.smtp.baseline,
        failedAttacked: failed.smtp.attacked,
      },
      health: {
        baseline: percentiles(health.baseline),
        attacked: percentiles(health.attacked),
        failedBaseline: failed.health.baseline,
        failedAttacked: failed.health.attacked,
      },
      peakRssMb: Math.max(peak, rssOf(pid).hwm),
      rssBeforeMb,
      rssAfterMb,
      attacks: attack.tallies,
    };
  } finally {
    clearInterval(sampler);
    await server.stop();
  }
}
