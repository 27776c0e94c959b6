import { withExtractedReply } from '../../src/events/payload.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addLocalInbox } from '../../src/mailbox/operations/admin.js';
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

  it('delivers live events, and exactly the missed ones after a reconnect with Last-Event-ID', async () => {
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

    await mail(server.inbox, 'Missed A');
    await mail(server.inbox, 'Missed B');

    const second = await openStream(server, `?account=${server.inbox}`, { lastEventId: live.id });
    const a = await second.nextEvent();
    const b = await second.nextEvent();
    expect([a.json.data.email.subject, b.json.data.email.subject]).toEqual(['Missed A', 'Missed B']);
    expect(Number(b.id)).toBeGreaterThan(Number(a.id));
    expect(Number(a.id)).toBeGreaterThan(Number(live.id));

    // Then live again, with nothing repeated in between.
    await mail(server.inbox, 'After reconnect');
    const c = await second.nextEvent();
    expect(c.json.data.email.subject).toBe('After reconnect');
    second.close();

    // The query form resumes the same way.
    const third = await openStream(server, `?account=${server.inbox}&lastEventId=${b.id}`);
    expect((await third.nextEvent()).json.data.email.subject).toBe('After reconnect');
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

  it('stores the body once: the event reads it from the message, and keeps it when the message is deleted for good', async () => {
    const store = server.mailroom.deps.store;
    const before = await store.events.lastSeq();
    const text = `${'Long body line for the event.\n'.repeat(3000)}end`;
    await server.sendMail({ from: 'sender@example.com', to: server.inbox, subject: 'Body once', text });
    const [replayed] = await store.events.forStream(
      { userId: (await store.users.find('default'))!.id },
      before,
      10,
    );
    const stored = (await store.db.rawFirst(
      'SELECT payload, body_of FROM events WHERE seq = ?',
      replayed!.seq,
    )) as {
      payload: string;
      body_of: number | null;
    };
    // Not copied into the event row...
    expect(JSON.parse(stored.payload).data.email.text).toBe('');
    expect(stored.payload.length).toBeLessThan(4000);
    expect(stored.body_of).not.toBeNull();
    // ...yet every reader gets it, cut to 64 KB and flagged.
    const stream = await openStream(server, `?account=${server.inbox}`, { lastEventId: String(before) });
    const event = await stream.nextEvent();
    stream.close();
    expect(event.json.data.email.subject).toBe('Body once');
    expect(event.json.data.email.text).toHaveLength(64 * 1024);
    expect(event.json.data.email.text.startsWith('Long body line for the event.')).toBe(true);
    expect(event.json.data.email.truncated).toBe(true);

    const uid = event.json.data.email.uid as number;
    const removed = await server.api(`/emails/${uid}?account=${server.inbox}&permanent=true`, {
      method: 'DELETE',
    });
    expect(removed.status).toBe(200);
    expect((await server.api(`/emails/${uid}?account=${server.inbox}`)).status).toBe(404);
    const again = await openStream(server, `?account=${server.inbox}`, { lastEventId: String(before) });
    const kept = await again.nextEvent();
    again.close();
    expect(kept.data).toBe(event.data);
  });

  it('gives a sent email its body from the Sent copy, not from a second copy in the event', async () => {
    const store = server.mailroom.deps.store;
    const before = await store.events.lastSeq();
    const sent = await server.api('/emails/send', {
      method: 'POST',
      body: {
        from: server.inbox,
        to: ['alice@example.com'],
        subject: 'Sent once',
        text: 'Sent body text.',
        html: '<p>Sent body html.</p>',
      },
    });
    expect(sent.status).toBe(200);
    const stream = await openStream(server, `?account=${server.inbox}`, { lastEventId: String(before) });
    const event = await stream.nextEvent();
    stream.close();
    expect(event.event).toBe('email.sent');
    expect(event.json.data.email.subject).toBe('Sent once');
    expect(event.json.data.email.text).toContain('Sent body text.');
    expect(event.json.data.email.html).toContain('<p>Sent body html.</p>');
    const stored = (await store.db.rawFirst(
      'SELECT payload, body_of FROM events WHERE seq = ?',
      Number(event.id),
    )) as {
      payload: string;
      body_of: number | null;
    };
    expect(stored.body_of).not.toBeNull();
    expect(JSON.parse(stored.payload).data.email.text).toBe('');
  });

  it('streams all your inboxes without account, one with it, and never anyone else’s', async () => {
    const deps = server.mailroom.deps;
    const user = (await deps.store.users.find('default'))!;
    const second = await addLocalInbox(deps, 'second@mailroom.test', user.id);
    const other = await server.addUser('dave');

    const all = await openStream(server);
    const one = await openStream(server, `?account=${second.address}`);
    const theirs = await openStream(server, '', { key: other.key });

    await mail(other.inbox, 'For dave');
    await mail(server.inbox, 'To main');
    await mail(second.address, 'To second');

    expect((await all.nextEvent()).json.data.email.subject).toBe('To main');
    expect((await all.nextEvent()).json.data.email.subject).toBe('To second');
    expect((await one.nextEvent()).json.data.email.subject).toBe('To second');
    const daves = await theirs.nextEvent();
    expect(daves.json.data).toMatchObject({ account: other.inbox, email: { subject: 'For dave' } });

    // After dave's own next event, still nothing of ours reached dave.
    await mail(other.inbox, 'Dave again');
    expect((await theirs.nextEvent()).json.data.email.subject).toBe('Dave again');
    for (const s of [all, one, theirs]) s.close();
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
