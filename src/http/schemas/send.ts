import { z } from '@hono/zod-openapi';
import { Attachment } from './emails.js';
import { account } from './common.js';

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

export const AttachmentInput = z
  .object({
    filename: z.string().min(1).max(255),
    contentType: z.string().min(1).max(255).optional().openapi({ example: 'application/pdf' }),
    content: z.string().openapi({ description: 'the bytes, base64' }),
    contentId: z.string().min(1).max(255).optional().openapi({ description: 'for inline parts (cid:)' }),
    inline: z.boolean().optional(),
  })
  .openapi('AttachmentInput');

const attachments = z.array(AttachmentInput).max(100);

export const SendBody = z
  .object({
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
  })
  .openapi('SendEmail');

/** Source 7: a reply needs text or html; the 400 names both fields. */
export const ReplyBody = z
  .object({
    text: text.optional(),
    html: html.optional(),
    replyAll: z.boolean().optional().openapi({ default: false }),
    includeOriginal: z.boolean().optional().openapi({ default: true }),
    cc: AddressList.optional(),
    bcc: AddressList.optional(),
    attachments: attachments.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.text === undefined && body.html === undefined) {
      for (const path of ['text', 'html']) {
        ctx.addIssue({ code: 'custom', path: [path], message: 'at least one of text or html is required' });
      }
    }
  })
  .openapi('ReplyEmail');

export const ForwardBody = z
  .object({
    to: RequiredAddressList,
    cc: AddressList.optional(),
    bcc: AddressList.optional(),
    text: text.optional(),
    html: html.optional(),
    includeAttachments: z.boolean().optional().openapi({ default: true }),
  })
  .openapi('ForwardEmail');

export const SourceQuery = z.object({
  account,
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

export const CreateDraftBody = z.object({ account, ...draftFields }).openapi('CreateDraft');
export const UpdateDraftBody = z.object({ account, ...draftFields }).openapi('UpdateDraft');
export const SendDraftBody = z.object({ account }).openapi('SendDraft');
export const DraftAccountQuery = z.object({ account });

export const DraftUidParam = z.object({
  uid: z
    .string()
    .regex(/^\d{1,15}$/, 'uid must be an integer')
    .transform(Number)
    .openapi({ param: { name: 'uid', in: 'path' }, example: '1', type: 'integer' }),
});

export const IdempotencyHeader = z.object({
  'idempotency-key': z
    .string()
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
    savedToSent: z.boolean(),
    delivery: z.array(Delivery),
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
