import nodemailer from 'nodemailer';

export interface IngestResult {
  messages: number;
  seconds: number;
  perSecond: number;
}

/** About 5 KB: headers plus a body of prose lines. */
export function sampleBody(i: number): string {
  const line = `Line of an ordinary message body number ${i}, with some words to index and search later.\n`;
  return line.repeat(Math.ceil(4600 / line.length));
}

/** Sends `count` messages over `connections` persistent SMTP connections and times it. */
export async function runIngest(
  port: number,
  to: string,
  count = 2000,
  connections = 20,
): Promise<IngestResult> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    pool: true,
    maxConnections: connections,
    maxMessages: Infinity,
    ignoreTLS: true,
  });
  const warmup = Array.from({ length: connections }, (_, i) =>
    transport.sendMail({ from: 'bench@example.com', to, subject: `warmup ${i}`, text: 'warm up' }),
  );
  await Promise.all(warmup);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        const i = next++;
        await transport.sendMail({
          from: 'Bench Sender <bench@example.com>',
          to,
          subject: `Benchmark message ${i}`,
          text: sampleBody(i),
        });
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  transport.close();
  return { messages: count, seconds, perSecond: count / seconds };
}
