import type { SMTPServerSession } from 'smtp-server';
import type { MailboxDeps } from '../mailbox/deps.js';
import { receiveMessage } from '../mailbox/ingest/receive.js';
import type { Recipient } from '../mailbox/ingest/recipients.js';
import type { DnsResolver } from './auth-check.js';
import { checkAuthentication } from './auth-check.js';
import { reply } from './replies.js';

/** Checks SPF/DKIM/DMARC of a received message and files it; resolves to the 250 text. */
export async function deliver(
  deps: MailboxDeps,
  session: SMTPServerSession,
  raw: Buffer,
  recipients: Recipient[],
  authResolver?: DnsResolver,
): Promise<string> {
  const { config, log } = deps;
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
      authResolver,
    );
    authResults = checked.results;
    spam = checked.reject;
  }
  try {
    const inboxes = recipients.map((r) => r.inbox);
    const inboxFolders = recipients.map((r) => r.inboxFolder);
    const nullSender = !session.envelope.mailFrom || session.envelope.mailFrom.address === '';
    const filed = await receiveMessage(deps, { raw, inboxes, inboxFolders, authResults, spam, nullSender });
    return `2.0.0 Ok: stored ${filed.map((f) => f.uid).join(',')}`;
  } catch (error) {
    log.error({ err: error, session: session.id }, 'storing an inbound message failed');
    throw reply.storageFailed();
  }
}

/** The trace header put in front of every received message. */
export function receivedHeader(session: SMTPServerSession, hostname: string): string {
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
