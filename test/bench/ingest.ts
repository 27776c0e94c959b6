import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { SmtpLoadConnection } from './smtp-client.js';

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

const FROM = 'bench@example.com';

/** Each message composed by nodemailer (CRLF, as on the wire) before the clock starts: the client's work is not timed. */
async function composeAll(to: string, count: number): Promise<Buffer[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const node = new MailComposer({
        from: `Bench Sender <${FROM}>`,
        to,
        subject: `Benchmark message ${i}`,
        text: sampleBody(i),
        newline: 'win',
      }).compile();
      return node.build();
    }),
  );
}

/**
 * Sends `count` messages over `connections` persistent SMTP connections and times it; with
 * several ports (nodes on one database) the connections are spread over them in turn.
 */
export async function runIngest(
  port: number | number[],
  to: string,
  count = 2000,
  connections = 20,
): Promise<IngestResult> {
  const messages = await composeAll(to, count);
  const ports = [port].flat();
  const pool = await Promise.all(
    Array.from({ length: connections }, (_, c) => SmtpLoadConnection.open(ports[c % ports.length]!)),
  );
  const warmup = Buffer.from(`From: ${FROM}\r\nTo: ${to}\r\nSubject: warm up\r\n\r\nwarm up\r\n`);
  await Promise.all(pool.map((connection) => connection.send(FROM, to, warmup)));
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    pool.map(async (connection) => {
      while (next < count) await connection.send(FROM, to, messages[next++]!);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(pool.map((connection) => connection.close()));
  return { messages: count, seconds, perSecond: count / seconds };
}
