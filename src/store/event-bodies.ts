import type { Db } from '../db/connection.js';
import { readBodies } from './message-sources.js';

/** Text and html in an event are cut to this many characters, and the email flagged `truncated`. */
export const EVENT_BODY_LIMIT = 64 * 1024;

export interface EventEmailBody {
  text: string;
  html?: string;
  truncated?: boolean;
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

/** The event body as stored when its email's text and html are read from the message instead. */
export function withoutEventBody(payload: { data: { email: EventEmailBody } }): unknown {
  const email = payload.data.email;
  return {
    ...payload,
    data: { ...payload.data, email: withEventBody(email, '', email.html === undefined ? undefined : '') },
  };
}

/** A stored event body with the text and html of message `bodyOf` put back in. */
export async function fillEventBody(db: Db, payload: string, bodyOf: number | null): Promise<string> {
  if (bodyOf === null) return payload;
  const body = (await readBodies(db, [bodyOf])).get(bodyOf);
  // Cannot happen: a message is only deleted after its body was written back into its events.
  if (!body) return payload;
  const event = JSON.parse(payload) as { data: { email: EventEmailBody } };
  const email = event.data.email;
  event.data.email = withEventBody(email, body.text, email.html === undefined ? undefined : body.html);
  return JSON.stringify(event);
}
