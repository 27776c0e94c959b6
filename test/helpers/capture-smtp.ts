import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMessage {
  /** MAIL FROM */
  from: string;
  /** RCPT TO that were accepted */
  to: string[];
  raw: Buffer;
}

export interface CaptureServer {
  port: number;
  /** `smtp://127.0.0.1:<port>`, for MAILROOM_RELAY_URL. */
  url: string;
  messages: CapturedMessage[];
  /** Every RCPT TO seen, accepted or not, lower-cased: counts attempts. */
  rcptSeen: string[];
  /** Answer RCPT TO for this recipient with 451 (try later) or 550 (never); null accepts again. */
  respond(recipient: string, code: 451 | 550 | null): void;
  /** The same for every recipient without its own rule. */
  respondAll(code: 451 | 550 | null): void;
  close(): Promise<void>;
}

const REPLIES = {
  451: '4.2.0 mailbox busy, try again later',
  550: '5.1.1 no such user here',
} as const;

/** A receiving SMTP server for tests: records the envelope and the raw bytes of what it accepts. */
export async function startCaptureServer(): Promise<CaptureServer> {
  const rules = new Map<string, 451 | 550>();
  let all: 451 | 550 | null = null;
  const capture = {
    port: 0,
    url: '',
    messages: [] as CapturedMessage[],
    rcptSeen: [] as string[],
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const recipient = address.address.toLowerCase();
      capture.rcptSeen.push(recipient);
      const code = rules.get(recipient) ?? all;
      if (!code) return callback();
      const error = new Error(REPLIES[code]) as Error & { responseCode: number };
      error.responseCode = code;
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        capture.messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((a) => a.address),
          raw: Buffer.concat(chunks),
        });
        callback();
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  capture.port = (server.server.address() as AddressInfo).port;
  capture.url = `smtp://127.0.0.1:${capture.port}`;

  return {
    port: capture.port,
    url: capture.url,
    messages: capture.messages,
    rcptSeen: capture.rcptSeen,
    respond(recipient, code) {
      if (code === null) rules.delete(recipient.toLowerCase());
      else rules.set(recipient.toLowerCase(), code);
    },
    respondAll(code) {
      all = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
