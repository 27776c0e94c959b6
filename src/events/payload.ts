import { extractReplyHtml } from '../mail/extract-reply-html.js';
import { extractReplyText } from '../mail/extract-reply.js';
import type { EmailView, UnextractedEmailView } from '../mailbox/reading/email-view.js';
import { withEventBody } from '../store/event-bodies.js';

export { EVENT_BODY_LIMIT } from '../store/event-bodies.js';

/**
 * The Email object as stored in an event: text and html cut to 64 KB, `truncated` when cut;
 * without extractedText and extractedHtml, which `withExtractedReply` adds as the event goes
 * out (the ingest path must not pay for them, and a body read back from its message needs them
 * worked out again anyway).
 */
export function emailForEvent(view: UnextractedEmailView | EmailView): UnextractedEmailView {
  const { extractedText: _text, extractedHtml: _html, ...email } = view as EmailView;
  return withEventBody(email, view.text, view.html);
}

interface EventWithEmail {
  data?: { email?: { text?: unknown; html?: unknown; extractedText?: string; extractedHtml?: string } };
}

/**
 * The event as a webhook or stream receives it: an Email it carries gains extractedText (and
 * extractedHtml when it has html), as on every Email the API returns (contract 13).
 */
export function withExtractedReply(payload: string): string {
  if (!payload.includes('"email"')) return payload;
  const event = JSON.parse(payload) as EventWithEmail;
  const email = event.data?.email;
  if (!email || typeof email.text !== 'string') return payload;
  email.extractedText = extractReplyText(email.text);
  if (typeof email.html === 'string')
    email.extractedHtml = email.html === '' ? '' : extractReplyHtml(email.html);
  return JSON.stringify(event);
}
