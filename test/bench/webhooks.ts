import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { percentiles } from './list.js';
import type { Latency } from './list.js';
import { startMailroom } from './processes.js';

/** SMTP arrival (the 250) to the webhook request reaching a receiver, for `count` messages. */
export async function runWebhooks(count = 1000): Promise<{ latency: Latency; eventsPerSecond: number }> {
  const received = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const subject = (JSON.parse(body) as { data: { email: { subject: string } } }).data.email.subject;
      if (!received.has(subject)) received.set(subject, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const server = await startMailroom({ MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' });
  try {
    const created = await fetch(`http://127.0.0.1:${server.httpPort}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, events: ['email.received'] }),
    });
    if (created.status !== 201) throw new Error(`webhook create answered ${created.status}`);
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: server.smtpPort,
      pool: true,
      maxConnections: 10,
      ignoreTLS: true,
    });
    const acked = new Map<string, number>();
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < count) {
          const subject = `Webhook benchmark ${next++}`;
          await transport.sendMail({
            from: 'bench@example.com',
            to: 'agent@mailroom.test',
            subject,
            text: 'hello',
          });
          acked.set(subject, performance.now());
        }
      }),
    );
    transport.close();
    const deadline = Date.now() + 60_000;
    while (received.size < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const samples = [...acked]
      .map(([subject, at]) => (received.get(subject) ?? Number.NaN) - at)
      .filter(Number.isFinite);
    const last = Math.max(...received.values());
    return { latency: percentiles(samples), eventsPerSecond: received.size / ((last - started) / 1000) };
  } finally {
    await server.stop();
    receiver.close();
  }
}
