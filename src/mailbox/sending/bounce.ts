import { emailForEvent } from '../../events/payload.js';
import type { DsnRecipient } from '../../mail/dsn.js';
import { composeDsn, headerBlock } from '../../mail/dsn.js';
import { parseEmail } from '../../mail/parse.js';
import type { ParsedEmail } from '../../mail/types.js';
import type { EventRow } from '../../store/events.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';
import { fileMessage } from '../ingest/file-message.js';
import { viewsOf } from '../reading/read.js';

/** A non-delivery report, composed and parsed ahead of the transaction that files it. */
export interface BounceNotice {
  inbox: InboxRow;
  raw: Buffer;
  parsed: ParsedEmail;
  recipients: DsnRecipient[];
}

export interface BouncedOriginal {
  inbox: InboxRow;
  raw: Buffer;
  messageId: string;
  subject: string;
  sentAt: Date;
}

/** Composes the DSN (RFC 3464) telling the sender which recipients the message could not reach. */
export async function prepareBounce(
  deps: MailboxDeps,
  original: BouncedOriginal,
  recipients: DsnRecipient[],
): Promise<BounceNotice> {
  const { inbox } = original;
  const { raw } = composeDsn({
    reportingMta: deps.config.hostname,
    domain: inbox.address.split('@')[1] ?? deps.config.domain,
    to: inbox.address,
    original: {
      headers: headerBlock(original.raw),
      messageId: original.messageId,
      subject: original.subject,
      arrivalDate: original.sentAt,
    },
    recipients,
  });
  return { inbox, raw, parsed: await parseEmail(raw), recipients };
}

/**
 * Files the notice into the sender's INBOX and records `email.bounced` with the sent Email
 * (its `delivery` already updated). Call inside the transaction that marks the deliveries failed.
 */
export async function fileBounce(
  deps: MailboxDeps,
  notice: BounceNotice,
  sentMessageId: number,
): Promise<EventRow[]> {
  const { store } = deps;
  const { inbox } = notice;
  const folder = await store.folders.find(inbox.id, 'INBOX');
  if (!folder) throw new Error(`inbox ${inbox.address} has no INBOX folder`);
  const filed = await fileMessage(store, {
    inbox,
    folder,
    parsed: notice.parsed,
    raw: notice.raw,
    flags: [],
    receivedAt: new Date(),
    autoReply: true,
  });
  const sent = await store.messages.get(sentMessageId);
  const sentFolder = sent ? await store.folders.get(sent.folder_id) : undefined;
  const email = sent
    ? (await viewsOf(deps, inbox, [sent], () => sentFolder?.name ?? 'Sent', 'full'))[0]
    : undefined;
  return [
    await store.events.append({
      type: 'email.bounced',
      userId: inbox.user_id,
      inboxId: inbox.id,
      data: {
        account: inbox.address,
        ...(email ? { email: emailForEvent(email) } : {}),
        bounce: {
          noticeUid: filed.uid,
          recipients: notice.recipients.map((r) => ({
            recipient: r.recipient,
            status: r.status,
            diagnostic: r.diagnostic,
          })),
        },
      },
    }),
  ];
}
