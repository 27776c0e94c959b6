// Engines: SQLite only: GET /events as HTTP (Server-Sent Events, Last-Event-ID as header and query, the payload as the webhook's, status codes, pings, the end at a stop); which events the feed gives, from where and with what body is test/mailbox/event-feed.test.ts, on both engines.
import { withExtractedReply } from '../../src/events/payload.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openStream } from '../helpers/sse-client.js';
import type { SseMessage } from '../helpers/sse-client.js';

describe('GET /events streams events as Server-Sent Events', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ eventStreamHeartbeatMs: 300 });
  });
  afterAll(async () => server.stop());

  const mail = (to: string, subject: string) =>
    server.sendMail({ from: 'sender@example.com', to, subject, text: `${subject} body` });

  it('delivers live events, and the missed ones after a reconnect with Last-Event-ID, as header or query', async () => {
    const first = await openStream(server, `?account=${server.inbox}`);
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get('content-type')).toContain('text/event-stream');

    await mail(server.inbox, 'Live one');
    const live = await first.nextEvent();
    expect(live.event).toBe('email.received');
    expect(live.id).toMatch(/^\d+$/);
    expect(live.json).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'email.received',
      data: { account: server.inbox, email: { subject: 'Live one' } },
    });
    first.close();

    await mail(server.inbox, 'Missed');
    const second = await openStream(server, `?account=${server.inbox}`, { lastEventId: live.id });
    const missed = await second.nextEvent();
    expect(missed.json.data.email.subject).toBe('Missed');
    expect(Number(missed.id)).toBeGreaterThan(Number(live.id));
    second.close();

    // The query form resumes the same way.
    const third = await openStream(server, `?account=${server.inbox}&lastEventId=${live.id}`);
    expect((await third.nextEvent()).json.data.email.subject).toBe('Missed');
    third.close();
  });

  it('carries the same event object as the webhook payload would', async () => {
    const stream = await openStream(server);
    await mail(server.inbox, 'Same shape');
    const event = await stream.nextEvent();
    stream.close();
    const stored = (await server.mailroom.deps.store.events.find(event.json.id))!;
    expect(event.data).toBe(withExtractedReply(stored.payload));
  });

  it("refuses another user's account with 403, a bad Last-Event-ID with 400, no key with 401", async () => {
    const other = await server.addUser('erin');
    const forbidden = await server.api(`/events?account=${other.inbox}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.error.code).toBe('forbidden');
    const bad = await server.api('/events', { headers: { 'last-event-id': 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('validation_error');
    expect((await server.api('/events', { key: null })).status).toBe(401);
  });

  it('sends a ping comment when quiet', async () => {
    const stream = await openStream(server);
    const pings: SseMessage[] = [];
    while (pings.length < 1) {
      const message = await stream.next();
      if (message === null) throw new Error('the stream ended before a ping');
      if (message.comment === 'ping') pings.push(message);
    }
    stream.close();
    expect(pings[0]!.comment).toBe('ping');
  });
});

describe('server stop', () => {
  it('ends open streams cleanly', async () => {
    const server = await startServer();
    const stream = await openStream(server);
    expect((await stream.next())?.comment).toBe('connected');
    const stopped = server.stop();
    // A clean end of the response, not a connection torn down under it.
    expect(await stream.next()).toBeNull();
    await stopped;
  });
});
