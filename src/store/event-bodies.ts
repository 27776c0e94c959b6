import type { Db } from '../db/connection.js';
import { previewOf } from '../mail/list-columns.js';
import { readBodies } from './message-sources.js';

/** Text and html in an event are cut to this many characters, and the email flagged `truncated`. */
export const EVENT_BODY_LIMIT = 64 * 1024;

export interface EventEmailBody {
  text: string;
  html?: string;
  truncated?: boolean;
  /** Worked out from the text (previewOf), so stored empty beside it and put back with it. */
  preview?: string;
}

/** The email with this text and html, cut to the event limit; `truncated: true` when cut. */
export function withEventBody<T extends EventEmailBody>(email: T, text: string, html: string | undefined): T {
  const cutText = text.length > EVENT_BODY_LIMIT ? text.slice(0, EVENT_BODY_LIMIT) : text;
  const cutHtml =
    html !== undefined && html.length > EVENT_BODY_LIMIT ? html.slice(0, EVENT_BODY_LIMIT) : html;
  const truncated = cutText !== text || cutHtml !== html;
  const { truncated: _dropped, ...rest } = email;
  return {
    ...rest,
    text: cutText,
    ...(cutHtml !== undefined ? { html: cutHtml } : {}),
    ...(truncated ? { truncated: true } : {}),
  } as T;
}

/**
 * The event body as stored when its email's text and html are read from the message instead; the
 * preview too, which is worked out from the text.
 */
export function withoutEventBody(payload: { data: { email: EventEmailBody } }): unknown {
  const email = withEventBody(payload.data.email, '', payload.data.email.html === undefined ? undefined : '');
  if (email.preview !== undefined) email.preview = '';
  return { ...payload, data: { ...payload.data, email } };
}

/** A stored event body with the text, html and preview of message `bodyOf` put back in. */
export async function fillEventBody(db: Db, payload: string, bodyOf: number | null): Promise<string> {
  if (bodyOf === null) return payload;
  const body = (await readBodies(db, [bodyOf])).get(bodyOf);
  // Cannot happen: a message is only deleted after its body was written back into its events.
  if (!body) return payload;
  const event = JSON.parse(payload) as { data: { email: EventEmailBody } };
  const email = event.data.email;
  event.data.email = withEventBody(email, body.text, email.html === undefined ? undefined : body.html);
  if (email.preview !== undefined) event.data.email.preview = previewOf(body.text);
  return JSON.stringify(event);
}
