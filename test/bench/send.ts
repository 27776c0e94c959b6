import { startCaptureServer } from '../helpers/capture-smtp.js';
import { cpuMs } from './memory.js';
import { startMailroom } from './processes.js';

export interface SendResult {
  accepted: number;
  seconds: number;
  perSecond: number;
  /** For relayed mail: until the relay had received every message. */
  deliveredPerSecond?: number;
  /** The server's CPU time (all threads) per message: steadier than the rate on a busy machine. */
  cpuMsPerMessage: number;
}

export async function sendMany(
  base: string,
  apiKey: string,
  from: string,
  to: string,
  count: number,
  concurrency: number,
) {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const res = await fetch(`${base}/api/v1/emails/send`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            from,
            to: [to],
            subject: `Send benchmark ${i}`,
            text: `Message ${i}\n`.repeat(40),
          }),
        });
        await res.arrayBuffer();
        if (res.status !== 200 && res.status !== 201) throw new Error(`send answered ${res.status}`);
      }
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** API sends, 10 at a time: to another local inbox, and to an outside address through a relay. */
export async function runSend(
  count = 1000,
  concurrency = 10,
  checkout?: string,
  nodeArgs: string[] = [],
): Promise<{ local: SendResult; relay: SendResult }> {
  const relay = await startCaptureServer();
  // Every send to one address: limits high enough to let them all through, still counted and checked.
  const server = await startMailroom(
    {
      MAILROOM_OUTBOUND: 'relay',
      MAILROOM_RELAY_URL: relay.url,
      MAILROOM_LOOP_LIMIT: String(count * 2),
      MAILROOM_SEND_LIMIT_PER_HOUR: String(count * 4),
      MAILROOM_SEND_LIMIT_PER_DAY: String(count * 4),
    },
    nodeArgs,
    checkout,
  );
  const base = `http://127.0.0.1:${server.httpPort}`;
  const from = 'agent@mailroom.test';
  try {
    const pid = server.process.pid!;
    const cpuBefore = cpuMs(pid);
    const localSeconds = await sendMany(base, server.apiKey, from, 'agent@mailroom.test', count, concurrency);
    const cpuLocal = cpuMs(pid);
    const started = process.hrtime.bigint();
    const relaySeconds = await sendMany(base, server.apiKey, from, 'someone@example.com', count, concurrency);
    const deadline = Date.now() + 120_000;
    while (relay.messages.length < count && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    const deliveredSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      local: {
        accepted: count,
        seconds: localSeconds,
        perSecond: count / localSeconds,
        cpuMsPerMessage: (cpuLocal - cpuBefore) / count,
      },
      relay: {
        accepted: count,
        seconds: relaySeconds,
        perSecond: count / relaySeconds,
        deliveredPerSecond: relay.messages.length / deliveredSeconds,
        cpuMsPerMessage: (cpuMs(pid) - cpuLocal) / count,
      },
    };
  } finally {
    await server.stop();
    await relay.close();
  }
}
