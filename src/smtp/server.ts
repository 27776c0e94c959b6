import { SMTPServer } from 'smtp-server';
import type { SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import type { MailboxDeps } from '../mailbox/deps.js';
import type { DnsResolver } from './auth-check.js';
import type { CommandDeadline } from './deadlines.js';
import { commandDeadline, dataDeadline } from './deadlines.js';
import { deliver, receivedHeader } from './deliver.js';
import { envelopeSender } from './envelope.js';
import { greetTrustedAtOnce } from './greeting.js';
import { InflightBudget } from './inflight-budget.js';
import { MessageBuffer } from './message-buffer.js';
import { resolveRecipient } from './recipient-policy.js';
import type { Recipient } from '../mailbox/ingest/recipients.js';
import { reply } from './replies.js';
import { readTlsFiles, tlsReloader } from './tls.js';
import { trustedNetworks } from './trusted-networks.js';

export interface SmtpOptions {
  deps: MailboxDeps;
  /** DNS for SPF/DKIM/DMARC; tests inject one since the internet is not reachable. */
  authResolver?: DnsResolver;
}

interface SessionState {
  /** The accepted recipients, by inbox id. */
  inboxes: Map<number, Recipient>;
  failedRecipients: number;
  commands: CommandDeadline | null;
}

const stateOf = (session: SMTPServerSession): SessionState => {
  const holder = session as SMTPServerSession & { mailroom?: SessionState };
  holder.mailroom ??= { inboxes: new Map(), failedRecipients: 0, commands: null };
  return holder.mailroom;
};

/** The SIZE= a sender declared at MAIL FROM, if any. */
const declaredSize = (session: SMTPServerSession): number | undefined => {
  const args = session.envelope.mailFrom ? session.envelope.mailFrom.args : false;
  const size = args ? Number(args.SIZE) : NaN;
  return Number.isSafeInteger(size) && size > 0 ? size : undefined;
};

export function createSmtpServer(options: SmtpOptions): SMTPServer {
  const { deps } = options;
  const { config, log } = deps;
  const perIp = new Map<string, number>();
  const trusted = trustedNetworks(config.smtpTrustedNetworks);
  // Sessions counted against the per-IP limits: those onConnect let in from outside the trusted
  // networks. Only they hold a slot; refused or early-closed ones free none.
  const counted = new WeakSet<SMTPServerSession>();
  const rateWindows = new Map<string, { start: number; count: number }>();
  const budget = new InflightBudget(config.smtpInflightBytes);
  const tlsFiles = config.tlsCert && config.tlsKey ? { cert: config.tlsCert, key: config.tlsKey } : null;
  // STARTTLS only with a certificate of our own: smtp-server's built-in one has a public key.
  const tlsOptions: Partial<SMTPServerOptions> = tlsFiles
    ? { ...readTlsFiles(tlsFiles), disabledCommands: ['AUTH'] }
    : { disabledCommands: ['AUTH', 'STARTTLS'] };

  const server = new SMTPServer({
    name: config.hostname,
    banner: 'Mailroom ESMTP',
    size: config.maxMessageBytes,
    authOptional: true,
    // Reverse DNS of each client costs ~100 ms a connection and decides nothing here.
    disableReverseLookup: true,
    ...tlsOptions,
    maxClients: config.smtpMaxConnections,
    logger: false,
    // Idle timeout; never shorter than the command deadline, which is the one that matters.
    socketTimeout: Math.max(60_000, config.smtpCommandTimeout * 1000),
    closeTimeout: 10_000,

    onConnect(session, callback) {
      if (!trusted(session.remoteAddress)) {
        const count = (perIp.get(session.remoteAddress) ?? 0) + 1;
        if (count > config.smtpMaxConnectionsPerIp) return callback(reply.tooManyConnections());
        perIp.set(session.remoteAddress, count);
        counted.add(session);
      }
      const timeout = reply.commandTimeout().message;
      stateOf(session).commands = commandDeadline(server, session, config.smtpCommandTimeout * 1000, timeout);
      if (!reloadTls) return callback();
      void reloadTls().then(() => callback());
    },

    onClose(session) {
      stateOf(session).commands?.stop();
      if (!counted.delete(session)) return;
      const count = (perIp.get(session.remoteAddress) ?? 1) - 1;
      if (count <= 0) perIp.delete(session.remoteAddress);
      else perIp.set(session.remoteAddress, count);
    },

    onMailFrom(address, session, callback) {
      stateOf(session).inboxes.clear();
      // Refused before any byte is sent when the declared size cannot be held now.
      if (address.args && Number(address.args.SIZE) > budget.remaining) return callback(reply.inflightFull());
      callback();
    },

    onRcptTo(address, session, callback) {
      const state = stateOf(session);
      if (session.envelope.rcptTo.length >= config.maxRecipients)
        return callback(reply.tooManyRecipients(config.maxRecipients));
      resolveRecipient(deps, address.address, envelopeSender(session)).then(
        (recipient) => {
          state.inboxes.set(recipient.inbox.id, recipient);
          callback();
        },
        (error: Error & { responseCode?: number }) => {
          // The database could not be asked (it is down): try again later, not "no such user".
          if (!error.responseCode) {
            log.error({ err: error }, 'recipient lookup failed');
            return callback(reply.lookupFailed());
          }
          state.failedRecipients += 1;
          // Probing for addresses: refuse a few, then hang up.
          if (state.failedRecipients > config.smtpMaxFailedRecipients)
            return callback(reply.tooManyFailedRecipients());
          callback(error);
        },
      );
    },

    onData(stream, session, callback) {
      receive(stream, session).then(
        (message) => callback(null, message),
        (error: Error & { responseCode?: number }) => {
          if (!error.responseCode) log.error({ err: error }, 'inbound message failed');
          callback(error.responseCode ? error : reply.storageFailed());
        },
      );
    },
  });

  // smtp-server reports its listening socket's errors here too: a port already taken or a host
  // that does not resolve is the start's to report (in one line, naming the setting), not a
  // connection's.
  server.on('error', (error) => {
    if (server.server.listening) log.warn({ err: error }, 'smtp connection error');
  });
  const reloadTls = tlsFiles ? tlsReloader(server, tlsFiles, log) : null;
  greetTrustedAtOnce(server, trusted);

  /**
   * Reads one message within its deadlines and delivers it. Its bytes count against the in-flight
   * budget until the reply is sent; a transfer that is too slow is cut off with 421.
   */
  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const state = stateOf(session);
    const head = Buffer.from(receivedHeader(session, config.hostname));
    const buffer = new MessageBuffer(budget, head, declaredSize(session));
    try {
      await new Promise<void>((resolve, reject) => {
        const settle = (error?: Error) => {
          deadline.stop();
          if (error) reject(error);
          else resolve();
        };
        const deadline = dataDeadline(
          stream,
          {
            timeoutMs: config.smtpDataTimeout * 1000,
            minRate: config.smtpMinDataRate,
            graceMs: config.smtpDataGrace * 1000,
          },
          () => {
            // A destroyed stream lets smtp-server answer (and close) without waiting for the dot.
            stream.destroy();
            settle(reply.dataTooSlow());
          },
        );
        stream.on('data', (chunk: Buffer) => {
          if (stream.sizeExceeded) buffer.discard('too-large');
          else buffer.push(chunk);
        });
        stream.once('end', () => settle());
        stream.once('error', settle);
      });
      if (buffer.discarded === 'too-large') throw reply.tooLarge(config.maxMessageBytes);
      if (buffer.discarded === 'over-budget') throw reply.inflightFull();
      if (counted.has(session) && overRate(session.remoteAddress)) throw reply.rateLimited();
      const inboxes = [...state.inboxes.values()];
      if (inboxes.length === 0) throw reply.noRecipients();
      return await deliver(deps, session, buffer.result(), inboxes, options.authResolver);
    } finally {
      buffer.release();
      // The reply goes out right after this; from then on the next command is due.
      setImmediate(() => state.commands?.arm());
    }
  }

  function overRate(ip: string): boolean {
    const now = Date.now();
    let window = rateWindows.get(ip);
    if (!window || now - window.start >= 60_000) {
      window = { start: now, count: 0 };
      rateWindows.set(ip, window);
      if (rateWindows.size > 10_000) rateWindows.clear();
    }
    window.count += 1;
    return window.count > config.smtpMessagesPerMinutePerIp;
  }

  return server;
}

/**
 * Stops accepting connections, lets every transaction already begun (MAIL FROM given) run to its
 * reply within `graceMs`, then closes every connection with 421. smtp-server's own close() answers 421 to the very next
 * command, which would cut off a sender between RCPT and DATA.
 */
export async function closeSmtpServer(server: SMTPServer, graceMs: number): Promise<void> {
  // Stop listening at once; the open connections are left to server.close() below.
  server.server.close();
  const deadline = Date.now() + graceMs;
  const busy = () =>
    [...(server.connections as Set<{ session?: SMTPServerSession }>)].some(
      (connection) => connection.session?.envelope?.mailFrom,
    );
  while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  // What is left is idle or past the grace: 421 now, not after smtp-server's closeTimeout, so a
  // stop fits in the grace (Docker kills a container 10 s after SIGTERM).
  for (const connection of server.connections as Set<{
    send(code: number, text: string): void;
    close(): void;
  }>) {
    connection.send(421, 'Server shutting down');
    connection.close();
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
