import { z } from '@hono/zod-openapi';
import { WAIT_MAX_SECONDS } from '../mailbox/events/wait-for-email.js';
import { HIDDEN_MAX, SCREENING_REASONS } from '../mail/screening/screen.js';
import { account, booleanQuery, isoDateQuery, limitQuery, uidPath } from './common.js';

export const Attachment = z
  .object({
    id: z.string(),
    filename: z.string(),
    contentType: z.string(),
    size: z.number().int(),
    contentId: z.string().nullable(),
    inline: z.boolean(),
  })
  .openapi('Attachment');

export const LabelRef = z.object({ id: z.string(), name: z.string(), color: z.string() }).openapi('LabelRef');

export const SPAM_ACTIONS = [
  'no action',
  'greylist',
  'add header',
  'rewrite subject',
  'soft reject',
  'reject',
] as const;

export const SpamCheck = z
  .object({
    score: z.number(),
    required: z.number().openapi({ description: "rspamd's score for its reject action" }),
    action: z.enum(SPAM_ACTIONS),
    symbols: z
      .array(z.object({ name: z.string(), score: z.number() }))
      .openapi({ description: 'the rules that matched, highest score first' }),
  })
  .openapi('SpamCheck');
export const Screening = z
  .object({
    verdict: z.enum(['clear', 'review']),
    reasons: z.array(z.enum(SCREENING_REASONS)),
    hidden: z.string().openapi({
      description: `the hidden text found (html a reader cannot see, invisible tag characters), cut to ${HIDDEN_MAX} characters; empty when none`,
    }),
  })
  .openapi('Screening', {
    description:
      'What screening found in a received message: `review` when any reason holds. hidden_text: html a reader cannot see ' +
      '(display:none, visibility:hidden, zero font size or opacity, text the colour of its background, off-screen); ' +
      'invisible_characters: zero-width or bidirectional control characters; link_mismatch: a link whose text names ' +
      'another host than its target; instructions_to_agent: text addressed to an AI model; auth_failed: DMARC failed; ' +
      'spam: rspamd scored it as spam. Mail stored before screening, and mail the account sent, reads clear.',
  });

export const Email = z
  .object({
    uid: z.number().int(),
    messageId: z.string(),
    threadId: z.string(),
    folder: z.string(),
    from: z.string(),
    fromName: z.string(),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    bcc: z.array(z.string()).optional().openapi({ description: 'only on mail this account sent' }),
    replyTo: z.array(z.string()),
    subject: z.string(),
    date: z.string(),
    receivedAt: z.string(),
    text: z.string(),
    html: z.string().optional().openapi({ description: 'only when one email is read' }),
    truncated: z.boolean().optional(),
    extractedText: z.string().openapi({
      description:
        'The new content of text: without the quoted history ("On ... wrote:", Outlook\'s From/Sent block, > quotes) ' +
        'and without the signature ("-- ", "Sent from my iPhone"). The text whole when nothing else is left. ' +
        'Cut to 500 characters in lists, as text is.',
    }),
    extractedHtml: z
      .string()
      .optional()
      .openapi({
        description:
          'The same for html (Gmail, Apple Mail, Outlook and Thunderbird quote and signature blocks removed); ' +
          'only when one email is read, as html is.',
      }),
    preview: z.string(),
    size: z.number().int(),
    flags: z.array(z.string()),
    labels: z.array(LabelRef),
    attachments: z.array(Attachment),
    inReplyTo: z.string().nullable(),
    references: z.array(z.string()),
    authResults: z.unknown(),
    spam: SpamCheck.nullable().openapi({
      description: "rspamd's verdict when MAILROOM_RSPAMD_URL was set as it arrived; null when not checked",
    }),
    screening: Screening,
    autoReply: z.boolean().openapi({
      description:
        'Received mail a machine sent: Auto-Submitted other than no, Precedence bulk, junk or list, ' +
        'X-Autoreply or X-Autorespond, or a null envelope sender (a bounce). False on mail this account sent.',
    }),
    delivery: z.array(z.object({ recipient: z.string(), status: z.string() })).optional(),
    rejectedReason: z.string().optional().openapi({
      description:
        'only on a send that did not go and came back to Drafts: the reason a person gave, cancelled, expired, or the rule that refused it',
    }),
    addressTotals: z
      .object({
        to: z.number().int().optional(),
        cc: z.number().int().optional(),
        bcc: z.number().int().optional(),
        replyTo: z.number().int().optional(),
      })
      .optional()
      .openapi({
        description:
          'Only when an address list was longer than the 100 entries kept: the whole count of each such list',
      }),
  })
  .openapi('Email');

export const ListEmailsQuery = z.object({
  account,
  folder: z.string().min(1).optional().openapi({ example: 'INBOX' }),
  limit: limitQuery,
  cursor: z.string().optional(),
  unread: booleanQuery.optional(),
  from: z.string().min(1).optional(),
  to: z.string().min(1).optional(),
  subject: z.string().min(1).optional(),
  since: isoDateQuery
    .optional()
    .openapi({ description: 'received at or after this time (by the server, not the Date header)' }),
  before: isoDateQuery.optional().openapi({ description: 'received before this time' }),
  label: z.string().min(1).optional().openapi({ description: 'label id or name' }),
  hasAttachments: booleanQuery.optional(),
  threadId: z.string().min(1).optional(),
  q: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .openapi({ description: 'full-text search over subject, addresses and body' }),
  wait: z.coerce
    .number({ error: 'wait must be a whole number of seconds, 1 to 300' })
    .int('wait must be a whole number of seconds, 1 to 300')
    .min(1, 'wait must be 1 to 300 seconds')
    .max(WAIT_MAX_SECONDS, 'wait must be 1 to 300 seconds')
    .optional()
    .openapi({
      type: 'integer',
      description:
        'Long-poll: when the first page (with these filters) is empty, wait up to this many seconds for ' +
        'matching mail, and answer as soon as it arrives; an empty page when none came in time or the server is stopping.',
    }),
});

export const ReadEmailQuery = z.object({
  account,
  folder: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: 'the folder the email is in; INBOX when omitted' }),
});

/** Raw and attachment downloads: `folder` is checked when given, the uid alone finds the email otherwise. */
export const DownloadQuery = z.object({
  account,
  folder: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: 'the folder the email must be in (404 otherwise); by uid alone when omitted' }),
});

export const AttachmentParams = z.object({
  id: uidPath('id'),
  attachmentId: z.string().min(1).max(64),
});

export const Folder = z
  .object({
    name: z.string(),
    specialUse: z.string().nullable(),
    total: z.number().int(),
    unread: z.number().int(),
  })
  .openapi('Folder');

export const ThreadSummary = z
  .object({
    threadId: z.string(),
    subject: z.string(),
    participants: z.array(z.string()),
    messageCount: z.number().int(),
    unreadCount: z.number().int(),
    lastDate: z.string(),
    preview: z.string(),
  })
  .openapi('ThreadSummary');

export const Thread = z
  .object({
    threadId: z.string(),
    subject: z.string(),
    messages: z.array(Email).openapi({ description: 'oldest first, across folders' }),
  })
  .openapi('Thread');

export const ListThreadsQuery = z.object({ account, limit: limitQuery, cursor: z.string().optional() });
