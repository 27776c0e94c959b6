import type { SMTPServerSession } from 'smtp-server';
import type { MailboxDeps } from '../mailbox/deps.js';
import { receiveMessage } from '../mailbox/ingest/receive.js';
import type { Filed } from '../mailbox/ingest/receive.js';
import { countScreening } from '../mailbox/ingest/screening-outcomes.js';
import type { Recipient } from '../mailbox/ingest/recipients.js';
import type { DnsResolver } from './auth-check.js';
import { envelopeSender } from './envelope.js';
import { reply } from './replies.js';
import { screenMessage } from './screening/screen.js';

/**
 * Screens a received message (ClamAV, SPF/DKIM/DMARC, rspamd: screening/screen.ts) and files it;
 * resolves to the 250 text, or throws the reply for a message refused or deferred.
 */
export async function deliver(
  deps: MailboxDeps,
  session: SMTPServerSession,
  raw: Buffer,
  recipients: Recipient[],
  authResolver?: DnsResolver,
): Promise<string> {
  const { log } = deps;
  const { authResults, spam, spamCheck } = await screenMessage(deps, session, raw, authResolver);
  let filed: Filed[];
  try {
    const inboxes = recipients.map((r) => r.inbox);
    const inboxFolders = recipients.map((r) => r.inboxFolder);
    const receiveLists = recipients.map((r) => r.receiveLists);
    const nullSender = envelopeSender(session) === '';
    filed = await receiveMessage(deps, {
      raw,
      inboxes,
      inboxFolders,
      receiveLists,
      authResults,
      spam,
      spamCheck,
      nullSender,
    });
  } catch (error) {
    log.error({ err: error, session: session.id }, 'storing an inbound message failed');
    throw reply.storageFailed();
  }
  if (spam) await countScreening(deps, 'spam');
  return `2.0.0 Ok: stored ${filed.map((f) => f.uid).join(',')}`;
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
