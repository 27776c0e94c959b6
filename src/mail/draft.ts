import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { MailComposerOptions } from 'nodemailer/lib/mail-composer/index.js';
import type { ComposeAttachment } from './compose.js';
import { newMessageId } from './compose.js';
import { htmlToText } from './html-text.js';

export interface DraftInput {
  from: { address: string; name?: string };
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text?: string;
  html?: string;
  attachments: ComposeAttachment[];
  inReplyTo?: string | null;
  references?: string[];
  messageIdDomain: string;
  /** The draft's Message-ID so far: kept across updates and into the sent message. */
  messageId?: string;
  date?: Date;
}

/**
 * A draft as real MIME. Unlike a message being sent, a draft may have no recipient yet and keeps
 * its Bcc header (as mail clients store drafts), since nobody but its author ever reads it.
 */
export async function composeDraft(input: DraftInput): Promise<{ raw: Buffer; messageId: string }> {
  const options: MailComposerOptions = {
    from: input.from.name ? { name: input.from.name, address: input.from.address } : input.from.address,
    subject: input.subject,
    date: input.date ?? new Date(),
    messageId: input.messageId ?? newMessageId(input.messageIdDomain),
    text: input.text ?? (input.html !== undefined ? htmlToText(input.html) : ''),
    attachments: input.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      contentTransferEncoding: 'base64' as const,
      contentDisposition: a.inline ? ('inline' as const) : ('attachment' as const),
      ...(a.contentId ? { cid: a.contentId.replace(/[<>]/g, '') } : {}),
    })),
    newline: 'win',
  };
  if (input.to.length) options.to = input.to;
  if (input.cc.length) options.cc = input.cc;
  if (input.bcc.length) options.bcc = input.bcc;
  if (input.html !== undefined) options.html = input.html;
  if (input.inReplyTo) options.inReplyTo = input.inReplyTo;
  if (input.references?.length) options.references = input.references;

  const node = new MailComposer(options).compile();
  node.keepBcc = true;
  const raw = await node.build();
  return { raw, messageId: node.messageId() };
}
