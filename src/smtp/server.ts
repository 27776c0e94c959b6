import { SMTPServer } from 'smtp-server';
import type { SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import type { MailboxDeps } from '../mailbox/deps.js';
import { receiveMessage } from '../mailbox/receive.js';
import type { InboxRow } from '../store/inboxes.js';
import type { DnsResolver } from './auth-check.js';
import { checkAuthentication } from './auth-check.js';
import { resolveRecipient } from './recipient-policy.js';
import { reply } from './replies.js';

export interface SmtpOptions {
  deps: MailboxDeps;
  /** DNS for SPF/DKIM/DMARC; tests inject one since the internet is not reachable. */
  authResolver?: DnsResolver;
}

interface SessionState {
  inboxes: Map<number, InboxRow>;
}

const stateOf = (session: SMTPServerSession): SessionState => {
  const holder = session as SMTPServerSession & { mailroom?: SessionState };
  holder.mailroom ??= { inboxes: new Map() };
  return holder.mailroom;
};

export function createSmtpServer(options: SmtpOptions): SMTPServer {
  const { deps } = options;
  const { config, log } = deps;
  const perIp = new Map<string, number>();
  // Only sessions that onConnect let in hold a slot; refused or early-closed ones free none.
  const counted = new WeakSet<SMTPServerSession>();
  const rateWindows = new Map<string, { start: number; count: number }>();

  const server = new SMTPServer({
    name: config.hostname,
    banner: 'Mailroom ESMTP',
    size: config.maxMessageBytes,
    authOptional: true,
    // Reverse DNS of each client costs ~100 ms a connection and decides nothing here.
    disableReverseLookup: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    maxClients: config.smtpMaxConnections,
    logger: false,
    socketTimeout: 60_000,
    closeTimeout: 10_000,

    onConnect(session, callback) {
      const count = (perIp.get(session.remoteAddress) ?? 0) + 1;
      if (count > config.smtpMaxConnectionsPerIp) return callback(reply.tooManyConnections());
      perIp.set(session.remoteAddress, count);
      counted.add(session);
      callback();
    },

    onClose(session) {
      if (!counted.delete(session)) return;
      const count = (perIp.get(session.remoteAddress) ?? 1) - 1;
      if (count <= 0) perIp.delete(session.remoteAddress);
      else perIp.set(session.remoteAddress, count);
    },

    onMailFrom(_address, session, callback) {
      stateOf(session).inboxes.clear();
      callback();
    },

    onRcptTo(address, session, callback) {
      const state = stateOf(session);
      if (session.envelope.rcptTo.length >= config.maxRecipients)
        return callback(reply.tooManyRecipients(config.maxRecipients));
      try {
        const inbox = resolveRecipient(deps.store, address.address);
        state.inboxes.set(inbox.id, inbox);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },

    onData(stream, session, callback) {
      collect(stream)
        .then(async (body) => {
          if (stream.sizeExceeded) throw reply.tooLarge(config.maxMessageBytes);
          if (overRate(session.remoteAddress)) throw reply.rateLimited();
          const inboxes = [...stateOf(session).inboxes.values()];
          if (inboxes.length === 0) throw reply.noRecipients();
          const raw = Buffer.concat([Buffer.from(receivedHeader(session, config.hostname)), body]);
          let authResults: unknown;
          let spam = false;
          if (config.verifyAuth) {
            const checked = await checkAuthentication(
              raw,
              {
                ip: session.remoteAddress,
                helo: session.hostNameAppearsAs,
                sender: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                mta: config.hostname,
              },
              options.authResolver,
            );
            authResults = checked.results;
            spam = checked.reject;
          }
          try {
            const filed = await receiveMessage(deps, { raw, inboxes, authResults, spam });
            return filed;
          } catch (error) {
            log.error({ err: error, session: session.id }, 'storing an inbound message failed');
            throw reply.storageFailed();
          }
        })
        .then(
          (filed) => callback(null, `2.0.0 Ok: stored ${filed.map((f) => f.uid).join(',')}`),
          (error: Error & { responseCode?: number }) => {
            if (!error.responseCode) log.error({ err: error }, 'inbound message failed');
            callback(error.responseCode ? error : reply.storageFailed());
          },
        );
    },
  });

  server.on('error', (error) => log.warn({ err: error }, 'smtp connection error'));

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
 * reply within `graceMs`, then closes. smtp-server's own close() answers 421 to the very next
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
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Reads the DATA stream fully; once over the SIZE limit it keeps draining but stops buffering. */
function collect(stream: SMTPServerDataStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => {
      if (!stream.sizeExceeded) chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function receivedHeader(session: SMTPServerSession, hostname: string): string {
  const helo = (session.hostNameAppearsAs || 'unknown').replace(/[^\w.:[\]-]/g, '');
  const client =
    session.clientHostname && session.clientHostname !== session.remoteAddress
      ? `${session.clientHostname} `
      : '';
  const recipients =
    session.envelope.rcptTo.length === 1 ? `\r\n\tfor <${session.envelope.rcptTo[0]!.address}>` : '';
  const protocol = session.transmissionType || 'ESMTP';
  return (
    `Received: from ${helo} (${client}[${session.remoteAddress}])\r\n\tby ${hostname} (Mailroom) with ${protocol} id ${session.id}` +
    `${recipients};\r\n\t${new Date().toUTCString().replace('GMT', '+0000')}\r\n`
  );
}
