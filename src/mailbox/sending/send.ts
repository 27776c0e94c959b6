import type { z } from '@hono/zod-openapi';
import type { Caller } from '../caller.js';
import type { SendBody, SendResult as SendResultSchema } from '../../contract/send.js';
import type { MailboxDeps } from '../deps.js';
import { requireInbox } from '../access.js';
import { idempotencyGuard, withIdempotency } from './idempotency.js';
import type { SentCopy } from './outgoing-types.js';
import { dispatch } from './outgoing.js';
import {
  InputProblems,
  readAttachments,
  readExtraHeaders,
  readFrom,
  readEnvelopeRecipients,
  readRecipients,
  readSendAt,
} from './outgoing-input.js';

export type SendInput = z.infer<typeof SendBody>;

/** The response of a send (contract 4), also what a draft send answers. */
export type SendResult = z.infer<typeof SendResultSchema>;

export interface SendOptions {
  idempotencyKey?: string;
}

export function sendResultOf({ view, delivery, notSavedToSent }: SentCopy): SendResult {
  return {
    uid: view.uid,
    messageId: view.messageId,
    threadId: view.threadId,
    from: view.from,
    to: view.to,
    cc: view.cc,
    subject: view.subject,
    savedToSent: notSavedToSent === undefined,
    ...(notSavedToSent === undefined ? {} : { savedToSentError: notSavedToSent }),
    delivery,
  };
}

/** POST /emails/send: a new message from one of the caller's inboxes. */
export async function sendEmail(
  deps: MailboxDeps,
  caller: Caller,
  input: SendInput,
  options: SendOptions = {},
): Promise<SendResult> {
  const guard = idempotencyGuard(caller.userId, options.idempotencyKey, 'send', input);
  // Reach before a replay: the key is the user's, and another of their keys may reach less.
  const from = readFrom(input.from);
  const inbox = await requireInbox(deps, caller, from.address);
  return withIdempotency(deps, guard, async () => {
    const problems = new InputProblems();
    const { to, cc, bcc } = readEnvelopeRecipients(input, deps.config.maxRecipients, problems);
    const replyTo = readRecipients(input.replyTo, 'replyTo', problems);
    const attachments = readAttachments(input.attachments, deps.config.maxMessageBytes, problems);
    const headers = readExtraHeaders(input.headers, problems);
    const sendAt = readSendAt(input.sendAt, problems);
    problems.throwIfAny();

    return dispatch(
      deps,
      {
        inbox,
        audit: caller.audit,
        bcc: bcc.addresses,
        requestedBy: caller.keyId,
        ...(sendAt ? { sendAt } : {}),
        compose: {
          from: { address: inbox.address, name: from.name || inbox.display_name },
          to: to.entries,
          cc: cc.entries,
          bcc: bcc.entries,
          replyTo: replyTo.entries,
          subject: input.subject,
          ...(input.text !== undefined ? { text: input.text } : {}),
          ...(input.html !== undefined ? { html: input.html } : {}),
          attachments,
          ...(headers ? { headers } : {}),
          messageIdDomain: inbox.address.split('@')[1] ?? deps.config.domain,
        },
      },
      guard,
      sendResultOf,
    );
  });
}
