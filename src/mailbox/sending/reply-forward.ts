import type { z } from '@hono/zod-openapi';
import type { Caller } from '../caller.js';
import type { ForwardBody, ReplyBody, ReplyResult as ReplyResultSchema } from '../../contract/send.js';
import { parseEmail } from '../../mail/parse.js';
import { planForward, planReply } from '../../mail/reply.js';
import type { ParsedEmail } from '../../mail/types.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MessageRow } from '../../store/messages.js';
import { requireInbox, requireMessage } from '../access.js';
import type { MailboxDeps } from '../deps.js';
import { NotFound, ValidationFailed } from '../errors.js';
import { idempotencyGuard, withIdempotency } from './idempotency.js';
import type { SentCopy } from './outgoing-types.js';
import { dispatch } from './outgoing.js';
import { sendResultOf } from './send.js';
import {
  InputProblems,
  checkRecipientCount,
  distinctAddresses,
  readAttachments,
  readEnvelopeRecipients,
  readRecipients,
  readSendAt,
} from './outgoing-input.js';
import type { SendOptions } from './send.js';

/** Which message is answered: `POST /emails/{id}/reply?account=&folder=`. */
export interface SourceRef {
  account: string;
  uid: number;
  /** The folder the original must be in; INBOX when not given (source 4.5). */
  folder?: string;
}

export type ReplyInput = Omit<z.infer<typeof ReplyBody>, 'account'>;

export type ForwardInput = Omit<z.infer<typeof ForwardBody>, 'account'>;

/** Source 2.5 plus `uid`, `threadId`, `cc` and `delivery`. */
export type ReplyResult = z.infer<typeof ReplyResultSchema>;

interface Original {
  inbox: InboxRow;
  message: MessageRow;
  parsed: ParsedEmail;
  date: Date;
}

/** A send result plus the threading headers the reply or forward carries. */
function replyResultOf(copy: SentCopy): ReplyResult {
  return {
    ...sendResultOf(copy),
    inReplyTo: copy.view.inReplyTo ?? '',
    references: copy.view.references.join(' '),
  };
}

async function loadOriginal(deps: MailboxDeps, inbox: InboxRow, source: SourceRef): Promise<Original> {
  const { message } = await requireMessage(deps, inbox, source.uid, source.folder ?? 'INBOX');
  const raw = await deps.store.messages.raw(message.id);
  if (!raw) throw new NotFound(`email ${source.uid} has no stored source`);
  const parsed = await parseEmail(raw);
  return { inbox, message, parsed, date: parsed.date ?? new Date(message.date) };
}

const domainOf = (inbox: InboxRow, fallback: string) => inbox.address.split('@')[1] ?? fallback;

/** Replies to the sender (Reply-To first), or to everyone with replyAll; flags the original `\Answered`. */
export async function replyToEmail(
  deps: MailboxDeps,
  caller: Caller,
  source: SourceRef,
  input: ReplyInput,
  options: SendOptions = {},
): Promise<ReplyResult> {
  if (input.text === undefined && input.html === undefined) {
    throw new ValidationFailed('a reply needs text or html', [
      { path: 'text', message: 'at least one of text or html is required' },
      { path: 'html', message: 'at least one of text or html is required' },
    ]);
  }
  const guard = idempotencyGuard(caller.userId, options.idempotencyKey, 'reply', { source, input });
  // Reach before a replay: the key is the user's, and another of their keys may reach less.
  const reached = await requireInbox(deps, caller, source.account);
  return withIdempotency(deps, guard, async () => {
    const loaded = await loadOriginal(deps, reached, source);
    const { inbox, parsed } = loaded;
    const problems = new InputProblems();
    const cc = readRecipients(input.cc, 'cc', problems);
    const bcc = readRecipients(input.bcc, 'bcc', problems);
    const attachments = readAttachments(input.attachments, deps.config.maxMessageBytes, problems);
    const sendAt = readSendAt(input.sendAt, problems);
    problems.throwIfAny();

    const plan = planReply(parsed, {
      selfAddress: inbox.address,
      ...(input.text !== undefined ? { text: input.text } : {}),
      ...(input.html !== undefined ? { html: input.html } : {}),
      replyAll: input.replyAll ?? false,
      includeOriginal: input.includeOriginal ?? true,
      extraCc: cc.entries,
      originalDate: loaded.date,
    });
    checkRecipientCount(
      distinctAddresses(plan.to, plan.cc, bcc.addresses).length,
      deps.config.maxRecipients,
      problems,
    );
    problems.throwIfAny();

    return dispatch(
      deps,
      {
        inbox,
        audit: caller.audit,
        bcc: bcc.addresses,
        requestedBy: caller.keyId,
        ...(sendAt ? { sendAt } : {}),
        answered: loaded.message,
        compose: {
          from: { address: inbox.address, name: inbox.display_name },
          to: plan.to,
          cc: plan.cc,
          bcc: bcc.entries,
          subject: plan.subject,
          ...(plan.text !== undefined ? { text: plan.text } : {}),
          ...(plan.html !== undefined ? { html: plan.html } : {}),
          attachments,
          inReplyTo: plan.inReplyTo,
          references: plan.references,
          messageIdDomain: domainOf(inbox, deps.config.domain),
        },
      },
      guard,
      replyResultOf,
    );
  });
}

/** Forwards the original, quoted under a forwarded-message header, with its attachments by default. */
export async function forwardEmail(
  deps: MailboxDeps,
  caller: Caller,
  source: SourceRef,
  input: ForwardInput,
  options: SendOptions = {},
): Promise<ReplyResult> {
  const guard = idempotencyGuard(caller.userId, options.idempotencyKey, 'forward', { source, input });
  // Reach before a replay: the key is the user's, and another of their keys may reach less.
  const reached = await requireInbox(deps, caller, source.account);
  return withIdempotency(deps, guard, async () => {
    const loaded = await loadOriginal(deps, reached, source);
    const { inbox, parsed } = loaded;
    const problems = new InputProblems();
    const { to, cc, bcc } = readEnvelopeRecipients(input, deps.config.maxRecipients, problems);
    const sendAt = readSendAt(input.sendAt, problems);
    problems.throwIfAny();

    const plan = planForward(parsed, {
      ...(input.text !== undefined ? { text: input.text } : {}),
      ...(input.html !== undefined ? { html: input.html } : {}),
      includeAttachments: input.includeAttachments ?? true,
      originalDate: loaded.date,
    });
    return dispatch(
      deps,
      {
        inbox,
        audit: caller.audit,
        bcc: bcc.addresses,
        requestedBy: caller.keyId,
        ...(sendAt ? { sendAt } : {}),
        compose: {
          from: { address: inbox.address, name: inbox.display_name },
          to: to.entries,
          cc: cc.entries,
          bcc: bcc.entries,
          subject: plan.subject,
          text: plan.text,
          ...(plan.html !== undefined ? { html: plan.html } : {}),
          attachments: plan.attachments,
          inReplyTo: plan.inReplyTo,
          references: plan.references,
          messageIdDomain: domainOf(inbox, deps.config.domain),
        },
      },
      guard,
      replyResultOf,
    );
  });
}
