import type { EmailView } from '../mailbox/email-view.js';

export const EVENT_BODY_LIMIT = 64 * 1024;

/** The Email object as carried in an event: text and html cut to 64 KB, `truncated` when cut. */
export function emailForEvent(view: EmailView): EmailView {
  const text = view.text.length > EVENT_BODY_LIMIT ? view.text.slice(0, EVENT_BODY_LIMIT) : view.text;
  const html =
    view.html && view.html.length > EVENT_BODY_LIMIT ? view.html.slice(0, EVENT_BODY_LIMIT) : view.html;
  const truncated = text !== view.text || html !== view.html;
  return {
    ...view,
    text,
    ...(html !== undefined ? { html } : {}),
    ...(truncated ? { truncated: true } : {}),
  };
}
