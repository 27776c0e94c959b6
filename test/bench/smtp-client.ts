import net from 'node:net';

interface Reply {
  code: number;
  text: string;
}

/**
 * A lean SMTP client for load: one persistent connection that sends prebuilt messages, with
 * MAIL, RCPT and DATA pipelined as RFC 2920 allows (what Postfix does). The bench measures the
 * server, so the client should spend as little of the shared CPU as a real MTA would.
 */
export class SmtpLoadConnection {
  private pending = '';
  private readonly lines: string[] = [];
  private readonly replies: Reply[] = [];
  private readonly waiters: { resolve: (r: Reply) => void; reject: (e: Error) => void }[] = [];
  private failure: Error | undefined;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('connection closed')));
  }

  static async open(port: number, host = '127.0.0.1'): Promise<SmtpLoadConnection> {
    const socket = net.connect(port, host);
    const connection = new SmtpLoadConnection(socket);
    await connection.expect(220);
    socket.write('EHLO bench.example\r\n');
    const ehlo = await connection.expect(250);
    if (!/PIPELINING/.test(ehlo.text)) throw new Error('server does not offer PIPELINING');
    return connection;
  }

  /** Sends one message and resolves once the server answered the final dot. */
  async send(from: string, to: string, dotStuffedBody: string): Promise<Reply> {
    this.socket.write(`MAIL FROM:<${from}>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
    await this.expect(250);
    await this.expect(250);
    await this.expect(354);
    this.socket.write(dotStuffedBody);
    return this.expect(250);
  }

  close(): void {
    this.socket.end('QUIT\r\n');
  }

  private async expect(code: number): Promise<Reply> {
    const reply = await this.next();
    if (reply.code !== code) throw new Error(`expected ${code}, got ${reply.code} ${reply.text}`);
    return reply;
  }

  private next(): Promise<Reply> {
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private receive(chunk: string): void {
    this.pending += chunk;
    for (;;) {
      const end = this.pending.indexOf('\r\n');
      if (end < 0) return;
      const line = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 2);
      this.lines.push(line.slice(4));
      if (line[3] === '-') continue;
      const reply = { code: Number(line.slice(0, 3)), text: this.lines.splice(0).join('\n') };
      const waiter = this.waiters.shift();
      if (waiter) waiter.resolve(reply);
      else this.replies.push(reply);
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.failure);
  }
}

/** CRLF line ends, leading dots doubled and the terminating dot: the DATA section on the wire. */
export function toDataSection(message: string): string {
  const crlf = message.replace(/\r?\n/g, '\r\n');
  const stuffed = crlf.replace(/^\./gm, '..');
  return `${stuffed}${stuffed.endsWith('\r\n') ? '' : '\r\n'}.\r\n`;
}
