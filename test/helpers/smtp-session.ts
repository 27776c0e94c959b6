import net from 'node:net';

/** One SMTP reply: the three-digit code and its text lines (joined). */
export interface SmtpReply {
  code: number;
  text: string;
}

/**
 * A bare SMTP client over a socket, for tests that must see each reply exactly (what nodemailer
 * hides: the answer to each RCPT, a refused connection, the reply after DATA).
 */
export interface SmtpSession {
  greeting: SmtpReply;
  command(line: string): Promise<SmtpReply>;
  /** Raw bytes, no reply awaited (a slow client, a message sent in parts). */
  write(bytes: string | Buffer): void;
  /** The next reply, whatever prompted it (a 421 the server sends on its own). */
  nextReply(): Promise<SmtpReply>;
  /** DATA, then the message (dot-stuffed here), then the final reply. */
  data(raw: string | Buffer): Promise<SmtpReply>;
  /** After a 354: the message (dot-stuffed here) and the final reply. */
  message(raw: string | Buffer): Promise<SmtpReply>;
  /** After a 354: bytes already dot-stuffed and ending in CRLF.CRLF, written as they are (large loads). */
  messagePrepared(wire: Buffer): Promise<SmtpReply>;
  /** EHLO, MAIL FROM, each RCPT TO, DATA: the replies of every step. */
  send(
    from: string,
    to: string[],
    raw: string | Buffer,
  ): Promise<{ mail: SmtpReply; rcpt: SmtpReply[]; data: SmtpReply | null }>;
  close(): Promise<void>;
  /** Resolves when the server closes the connection. */
  closed: Promise<void>;
}

/** `localAddress` picks the client's source address (any of 127.0.0.0/8 on loopback), as distinct senders. */
export async function openSmtp(
  port: number,
  host = '127.0.0.1',
  localAddress?: string,
): Promise<SmtpSession> {
  const socket = net.connect({ port, host, ...(localAddress ? { localAddress } : {}) });
  let buffer = '';
  let current: string[] = [];
  const replies: SmtpReply[] = [];
  const waiting: ((reply: SmtpReply) => void)[] = [];
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      current.push(line.slice(4));
      if (line[3] !== '-') {
        const reply = { code: Number(line.slice(0, 3)), text: current.join('\n') };
        current = [];
        const waiter = waiting.shift();
        if (waiter) waiter(reply);
        else replies.push(reply);
      }
    }
  });
  socket.on('error', () => undefined);
  void closed.then(() => {
    for (const waiter of waiting.splice(0)) waiter({ code: 0, text: 'connection closed' });
  });

  const next = (): Promise<SmtpReply> =>
    new Promise((resolve) => {
      const ready = replies.shift();
      if (ready) resolve(ready);
      else if (socket.destroyed) resolve({ code: 0, text: 'connection closed' });
      else waiting.push(resolve);
    });

  const session: SmtpSession = {
    greeting: await next(),
    async command(line) {
      socket.write(`${line}\r\n`);
      return next();
    },
    write(bytes) {
      if (!socket.destroyed) socket.write(bytes);
    },
    nextReply: next,
    async data(raw) {
      const start = await session.command('DATA');
      if (start.code !== 354) return start;
      return session.message(raw);
    },
    async message(raw) {
      let body = Buffer.isBuffer(raw) ? raw.toString('latin1') : Buffer.from(raw).toString('latin1');
      body = body.replace(/(^|\n)\./g, '$1..');
      if (!body.endsWith('\r\n')) body += '\r\n';
      socket.write(Buffer.from(`${body}.\r\n`, 'latin1'));
      return next();
    },
    async messagePrepared(wire) {
      socket.write(wire);
      return next();
    },
    async send(from, to, raw) {
      await session.command('EHLO client.example');
      const mail = await session.command(`MAIL FROM:<${from}>`);
      const rcpt: SmtpReply[] = [];
      for (const address of to) rcpt.push(await session.command(`RCPT TO:<${address}>`));
      const data = rcpt.some((r) => r.code === 250) ? await session.data(raw) : null;
      return { mail, rcpt, data };
    },
    async close() {
      if (!socket.destroyed) {
        socket.write('QUIT\r\n');
        socket.end();
      }
      await Promise.race([closed, new Promise((r) => setTimeout(r, 1000))]);
      socket.destroy();
    },
    closed,
  };
  return session;
}

/** A minimal RFC 5322 message. */
export function rawMessage(fields: {
  from: string;
  to: string;
  subject: string;
  body?: string;
  messageId?: string;
  headers?: Record<string, string>;
}): string {
  const lines = [
    `From: ${fields.from}`,
    `To: ${fields.to}`,
    `Subject: ${fields.subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: ${fields.messageId ?? `<${Math.random().toString(36).slice(2)}@test.example>`}`,
    ...Object.entries(fields.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    fields.body ?? 'Hello',
    '',
  ];
  return lines.join('\r\n');
}
