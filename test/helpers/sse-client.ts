import type { TestServer } from './server.js';

export interface SseMessage {
  event?: string;
  id?: string;
  data?: string;
  comment?: string;
}

/** A minimal Server-Sent Events client over fetch that also surfaces comments (pings). */
export async function openStream(
  server: Pick<TestServer, 'baseUrl' | 'key'>,
  query = '',
  init: { key?: string | null; lastEventId?: string } = {},
) {
  const controller = new AbortController();
  // key null: no Authorization header (a stream token in the query instead).
  const headers: Record<string, string> =
    init.key === null ? {} : { authorization: `Bearer ${init.key ?? server.key}` };
  if (init.lastEventId !== undefined) headers['last-event-id'] = init.lastEventId;
  const res = await fetch(`${server.baseUrl}/api/v1/events${query}`, { headers, signal: controller.signal });
  // A refusal is an error here, not an empty stream a test could wait on forever.
  if (res.status !== 200) throw new Error(`GET /events${query} answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queued: SseMessage[] = [];

  async function next(): Promise<SseMessage | null> {
    for (;;) {
      const queuedMessage = queued.shift();
      if (queuedMessage) return queuedMessage;
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: SseMessage = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) message.comment = line.slice(1).trim();
          else {
            const colon = line.indexOf(':');
            const field = line.slice(0, colon) as 'event' | 'id' | 'data';
            message[field] = line.slice(colon + 1).replace(/^ /, '');
          }
        }
        queued.push(message);
        continue;
      }
      const { done, value } = await reader.read();
      if (done) return null;
      buffer += decoder.decode(value, { stream: true });
    }
  }

  /** The next event, skipping comments. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function nextEvent(): Promise<SseMessage & { json: { id: string; type: string; data: any } }> {
    for (;;) {
      const message = await next();
      if (message === null) throw new Error('stream ended');
      if (message.event !== undefined) return { ...message, json: JSON.parse(message.data!) };
    }
  }

  return { res, next, nextEvent, close: () => controller.abort() };
}
