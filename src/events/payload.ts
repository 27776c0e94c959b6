import type { EmailView } from '../mailbox/reading/email-view.js';
import { withEventBody } from '../store/event-bodies.js';

export { EVENT_BODY_LIMIT } from '../store/event-bodies.js';

/**
 * The Email object as carried in an event: text and html cut to 64 KB, `truncated` when cut;
 * without extractedText and extractedHtml, which the event body (filled in when read) cannot follow.
 */
export function emailForEvent(view: EmailView): EmailView {
  const { extractedText: _text, extractedHtml: _html, ...email } = view;
  return withEventBody(email, view.text, view.html);
}
