import { z } from '@hono/zod-openapi';
import { Attachment } from './emails.js';
import { account, accountEither, atLeastOneOf, uidPath } from './common.js';

const address = z.string().min(1).max(998);

/** One address (`a@b` or `Name <a@b>`) or a list of them. */
const AddressList = z
  .union([address, z.array(address).max(500)])
  .openapi({ example: ['alice@example.com'], description: 'an address or a list of addresses' });

const RequiredAddressList = z
  .union([address, z.array(address).min(1, 'at least one recipient is required').max(500)])
  .openapi({ example: ['alice@example.com'], description: 'an address or a list of addresses' });

const text = z.string().openapi({ description: 'plain text body' });
const html = z.string().openapi({ description: 'HTML body' });

/** A body part that says something: present and not empty. */
const filled = (part: string | undefined) => part !== undefined && part !== '';

export const AttachmentInput = z
  .strictObject({
    filename: z.string().min(1).max(255),
    contentType: z.string().min(1).max(255).optional().openapi({ example: 'application/pdf' }),
    content: z.string().openapi({ description: 'the bytes, base64' }),
    contentId: z.string().min(1).max(255).optional().openapi({ description: 'for inline parts (cid:)' }),
    inline: z.boolean().optional(),
  })
  .openapi('AttachmentInput');

const attachments = z.array(AttachmentInput).max(100);

/** Contract 15: when a send goes; the verb checks it is in the future and within a year. */
const sendAt = z.iso
  .datetime({ offset: true, error: 'sendAt is an ISO 8601 date and time, e.g. 2026-12-01T09:00:00Z' })
  .optional()
  .openapi({
    example: '2026-12-01T09:00:00Z',
    description: 'send later: kept in Outbox and sent at this time (in the future, at most 365 days ahead)',
  });

export const SendBody = z
  .strictObject({
    from: z.string().min(1).openapi({ example: 'agent@mailroom.test', description: 'one of your inboxes' }),
    to: RequiredAddressList,
    cc: AddressList.optional(),
    bcc: AddressList.optional(),
    replyTo: AddressList.optional(),
    subject: z.string().max(2000),
    text: text.optional(),
    html: html.optional(),
    attachments: attachments.optional(),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .openapi({ description: 'extra, non-structural headers', example: { 'X-Ticket': '42' } }),
    sendAt,
  })
  .superRefine((body, ctx) => {
    if (!filled(body.text) && !filled(body.html) && !body.attachments?.length) {
      for (const path of ['text', 'html']) {
        ctx.addIssue({
          code: 'custom',
          path: [path],
          message: 'a message needs text, html or attachments; none was given',
        });
      }
    }
  })
  .openapi('SendEmail', {
    description: 'Give at least one of text, html or attachments.',
    anyOf: [
      ...atLeastOneOf(['text', 'html'], ['text', 'html']).anyOf,
      { required: ['attachments'], properties: { attachments: { minItems: 1 } } },
    ],
  } as never);

/** Source 7: a reply needs text or html (an empty string is none); the 400 names both fields. */
export const ReplyBody = z
  .strictObject({
    account: accountEither,
    text: text.optional(),
    html: html.optional(),
    replyAll: z.boolean().optional().openapi({ default: false }),
    includeOriginal: z.boolean().optional().openapi({ default: true }),
    cc: AddressList.optional(),
    bcc: AddressList.optional(),
    attachments: attachments.optional(),
    sendAt,
  })
  .superRefine((body, ctx) => {
    if (!filled(body.text) && !filled(body.html)) {
      for (const path of ['text', 'html']) {
        ctx.addIssue({ code: 'custom', path: [path], message: 'a reply needs a non-empty text or html' });
      }
    }
  })
  .openapi('ReplyEmail', {
    description: 'Give at least one of text or html, not empty.',
    ...atLeastOneOf(['text', 'html'], ['text', 'html']),
  });

export const ForwardBody = z
  .strictObject({
    account: accountEither,
    to: RequiredAddressList,
    cc: AddressList.optional(),
    bcc: AddressList.optional(),
    text: text.optional(),
    html: html.optional(),
    includeAttachments: z.boolean().optional().openapi({ default: true }),
    sendAt,
  })
  .openapi('ForwardEmail');

export const SourceQuery = z.object({
  account: accountEither,
  folder: z.string().min(1).optional().openapi({ description: 'folder of the original', example: 'INBOX' }),
});

const draftFields = {
  to: AddressList.optional(),
  cc: AddressList.optional(),
  bcc: AddressList.optional(),
  subject: z.string().max(2000).optional(),
  text: text.optional(),
  html: html.optional(),
  attachments: attachments.optional(),
  inReplyTo: z
    .number()
    .int()
    .positive()
    .nullable()
    .optional()
    .openapi({ description: 'uid of the message this draft answers; null clears it' }),
};

export const CreateDraftBody = z
  .strictObject({ account: accountEither, ...draftFields })
  .openapi('CreateDraft');
export const UpdateDraftBody = z
  .strictObject({ account: accountEither, ...draftFields })
  .refine(
    ({ account: _, ...fields }) => Object.values(fields).some((value) => value !== undefined),
    `give at least one field to change: ${Object.keys(draftFields).join(', ')}`,
  )
  .openapi('UpdateDraft', {
    description: 'Give at least one field to change besides account.',
    ...atLeastOneOf(Object.keys(draftFields)),
  });
export const SendDraftBody = z.strictObject({ account: accountEither, sendAt }).openapi('SendDraft');
export const DraftAccountQuery = z.object({ account });

export const DraftUidParam = z.object({ uid: uidPath('uid') });

export const IdempotencyHeader = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters')
    .optional()
    .openapi({ description: 'a retry with the same key returns the first result (kept 24 h)' }),
});

const Delivery = z.object({
  recipient: z.string(),
  status: z.enum(['delivered', 'queued', 'deferred', 'failed', 'captured']),
});

export const SendResult = z
  .object({
    uid: z.number().int(),
    messageId: z.string(),
    threadId: z.string(),
    from: z.string(),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    subject: z.string(),
    savedToSent: z.boolean().openapi({
      description: "false when a connected mailbox's server did not store the copy in its Sent folder",
    }),
    savedToSentError: z.string().optional().openapi({
      description: 'why the copy is not in the remote Sent folder (only when savedToSent is false)',
    }),
    delivery: z.array(Delivery).openapi({ description: 'empty while the send waits in Outbox' }),
    status: z.enum(['pending_approval', 'scheduled']).optional().openapi({
      description:
        'only when the send waits in Outbox (answered 202): pending_approval, for a person to decide; scheduled, for sendAt',
    }),
    approvalId: z
      .string()
      .optional()
      .openapi({ description: 'with pending_approval: what to approve or reject' }),
    sendAt: z.string().optional().openapi({ description: 'when a scheduled send goes' }),
  })
  .openapi('SendResult');

export const ReplyResult = SendResult.extend({
  inReplyTo: z.string(),
  references: z.string().openapi({ description: 'the thread chain of Message-IDs, space separated' }),
}).openapi('ReplyResult');

export const Draft = z
  .object({
    uid: z.number().int(),
    threadId: z.string(),
    messageId: z.string(),
    from: z.string(),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    bcc: z.array(z.string()),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
    attachments: z.array(Attachment),
    inReplyTo: z.string().nullable(),
    references: z.array(z.string()),
    date: z.string(),
    flags: z.array(z.string()),
  })
  .openapi('Draft');
