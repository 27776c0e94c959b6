import type { SmtpReply, SmtpSession } from '../helpers/smtp-session.js';
import { openSmtp } from '../helpers/smtp-session.js';

const expect = (reply: SmtpReply, code: number): SmtpReply => {
  if (reply.code !== code) throw new Error(`expected ${code}, got ${reply.code} ${reply.text}`);
  return reply;
};

/**
 * One persistent connection for load: MAIL, RCPT and DATA are pipelined as RFC 2920 allows (what
 * Postfix does), then the message, then its 250. The bench measures the server, so the client
 * should spend as little of the shared CPU as a real MTA would.
 */
export class SmtpLoadConnection {
  private constructor(private readonly session: SmtpSession) {}

  static async open(port: number): Promise<SmtpLoadConnection> {
    const session = await openSmtp(port);
    expect(session.greeting, 220);
    const ehlo = expect(await session.command('EHLO bench.example'), 250);
    if (!/PIPELINING/.test(ehlo.text)) throw new Error('server does not offer PIPELINING');
    return new SmtpLoadConnection(session);
  }

  async send(from: string, to: string, raw: Buffer): Promise<SmtpReply> {
    // Each command is written at once; the replies come back in order.
    const [mail, rcpt, data] = await Promise.all([
      this.session.command(`MAIL FROM:<${from}>`),
      this.session.command(`RCPT TO:<${to}>`),
      this.session.command('DATA'),
    ]);
    expect(mail!, 250);
    expect(rcpt!, 250);
    expect(data!, 354);
    return expect(await this.session.message(raw), 250);
  }

  close(): Promise<void> {
    return this.session.close();
  }
}
