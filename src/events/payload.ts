import type { EmailView } from '../mailbox/email-view.js';
import { withEventBody } from '../store/event-bodies.js';

export { EVENT_BODY_LIMIT } from '../store/event-bodies.js';

/** The Email object as carried in an event: text and html cut to 64 KB, `truncated` when cut. */
export function emailForEvent(view: EmailView): EmailView {
  return withEventBody(view, view.text, view.html);
}
