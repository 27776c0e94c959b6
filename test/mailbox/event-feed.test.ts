import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventFeed } from '../../src/mailbox/events/event-stream.js';
import { openEventFeed } from '../../src/mailbox/events/event-stream.js';
import { Forbidden } from '../../src/mailbox/errors.js';
import { receiveMessage } from '../../src/mailbox/ingest/receive.js';
import { deleteEmail, updateEmail } from '../../src/mailbox/organising/organise.js';
import { readEmail } from '../../src/mailbox/reading/read.js';
import { sendEmail } from '../../src/mailbox/sending/send.js';
import type { EventRow } from '../../src/store/events.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess, Who } from '../helpers/in-process.js';

// What the feed behind GET /events reads: which events, from where, with what body. The stream
// as HTTP (Server-Sent Events, Last-Event-ID as header and query, status codes, pings, the end at
// a stop) is test/e2e/events-stream.test.ts.
let box: InProcess;
let account: string;
let dave: { inbox: InboxRow; address: string; who: Who };
const feeds: EventFeed[] = [];

beforeAll(async () => {
  box = await inProcessInbox('events@mailroom.test');
  account = box.inbox.address;
  const other = await box.addInbox('dave@mailroom.test', 'dave');
  dave = { inbox: other.inbox, address: other.inbox.address, who: other.who };
});
afterAll(async () => {
  for (const feed of feeds) feed.close();
  await box?.close();
});

/** A feed as the door opens it for a dashboard session (a key's feed is the door's to check). */
async function feed(options: { account?: string; lastEventId?: number } = {}, who: Who = box.who) {
  const opened = await openEventFeed(box.deps, who, { ...options, sessionId: 'a session' });
  feeds.push(opened);
  return opened;
}
const mail = (subject: string, text = `${subject} body`, to: InboxRow = box.inbox) =>
  box.deliver({ from: 'sender@example.com', to: to.address, subject, text }, { to: [to] });
type Payload = {
  data: {
    account: string;
    email: { uid: number; subject: string; text: string; html?: string; truncated?: boolean };
  };
};
const payloadOf = (row: EventRow) => JSON.parse(row.payload) as Payload;
/** The event's row as stored: its payload without the body, and the message it reads the body from. */
const storedRow = async (seq: number) =>
  (await box.deps.store.db.rawFirst('SELECT payload, body_of FROM events WHERE seq = ?', seq)) as {
    payload: string;
    body_of: number | null;
  };
const subjects = (rows: EventRow[]) => rows.map((row) => payloadOf(row).data.email.subject);

describe('the event feed', () => {
  it('gives what happens from now on, and exactly the events after a seq when resumed', async () => {
    await mail('Before the feed');
    const live = await feed({ account });
    expect(await live.take()).toEqual([]);
    await mail('Live one');
    expect(await live.wait(60_000)).toBe(true);
    const [first] = await live.take();
    expect(first).toMatchObject({ type: 'email.received' });
    expect(payloadOf(first!)).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'email.received',
      data: { account, email: { subject: 'Live one' } },
    });

    await mail('Missed A');
    await mail('Missed B');
    const resumed = await feed({ account, lastEventId: first!.seq });
    const missed = await resumed.take();
    expect(subjects(missed)).toEqual(['Missed A', 'Missed B']);
    expect(missed[1]!.seq).toBeGreaterThan(missed[0]!.seq);
    expect(missed[0]!.seq).toBeGreaterThan(first!.seq);

    // Then live again, with nothing repeated in between.
    await mail('After reconnect');
    expect(await resumed.wait(60_000)).toBe(true);
    expect(subjects(await resumed.take())).toEqual(['After reconnect']);
  });

  it('stores the body once: the event reads it from the message, and keeps it when the message is deleted for good', async () => {
    const { store } = box.deps;
    const before = await store.events.lastSeq();
    const text = `${'Long body line for the event.\n'.repeat(3000)}end`;
    await mail('Body once', text);
    const [event] = await (await feed({ account, lastEventId: before })).take();
    const stored = await storedRow(event!.seq);
    // Not copied into the event row...
    expect(JSON.parse(stored.payload).data.email.text).toBe('');
    expect(stored.payload.length).toBeLessThan(4000);
    expect(stored.body_of).not.toBeNull();
    // ...yet every reader gets it, cut to 64 KB and flagged.
    const { email } = payloadOf(event!).data;
    expect(email.subject).toBe('Body once');
    expect(email.text).toHaveLength(64 * 1024);
    expect(email.text.startsWith('Long body line for the event.')).toBe(true);
    expect(email.truncated).toBe(true);

    await deleteEmail(box.deps, box.who, { account, uid: email.uid }, { permanent: true });
    expect(await refusal(readEmail(box.deps, box.who, account, email.uid))).not.toBe('no error');
    const [kept] = await (await feed({ account, lastEventId: before })).take();
    expect(kept!.payload).toBe(event!.payload);
  });

  it('reads an event back as it was sent, byte for byte, after a flag, a move and a deletion for good', async () => {
    const { store, bus } = box.deps;
    const published: EventRow[] = [];
    const unsubscribe = bus.subscribe((rows) => published.push(...rows));
    const raw = await new MailComposer({
      from: '"Ann Sender" <ann@example.com>',
      to: account,
      cc: 'Carol <carol@example.com>',
      replyTo: 'replies@example.com',
      subject: 'Kept as sent',
      text: 'The body of the message kept as sent.',
      html: '<p>The body of the message kept as sent.</p>',
      inReplyTo: '<first@example.com>',
      references: ['<root@example.com>', '<first@example.com>'],
      attachments: [{ filename: 'notes.txt', content: 'some notes' }],
    })
      .compile()
      .build();
    const authResults = { spf: { result: 'pass' }, dkim: [{ result: 'pass', domain: 'example.com' }] };
    await receiveMessage(box.deps, { raw, inboxes: [box.inbox], authResults });
    unsubscribe();
    const sent = published.find((row) => row.type === 'email.received')!;
    const readBack = async () => (await store.events.find(sent.id))!.payload;
    expect(await readBack()).toBe(sent.payload);
    expect(JSON.parse(sent.payload).data.email).toMatchObject({
      fromName: 'Ann Sender',
      cc: ['carol@example.com'],
      references: ['<root@example.com>', '<first@example.com>'],
      authResults,
      attachments: [{ filename: 'notes.txt' }],
    });
    // The event row keeps no second copy of what the message row holds...
    const stored = await storedRow(sent.seq);
    for (const copy of ['Kept as sent', 'root@example.com', 'carol@example.com', '"spf"'])
      expect(stored.payload).not.toContain(copy);

    // ...and what may change later reads as it was when the event was sent.
    const { uid } = payloadOf(sent).data.email;
    await updateEmail(box.deps, box.who, { account, uid }, { action: 'read' });
    await updateEmail(box.deps, box.who, { account, uid }, { action: 'move', folder: 'Trash' });
    expect(await readBack()).toBe(sent.payload);
    await deleteEmail(box.deps, box.who, { account, uid, folder: 'Trash' }, { permanent: true });
    expect(await readBack()).toBe(sent.payload);
  });

  it('gives a sent email its body from the Sent copy, not from a second copy in the event', async () => {
    const { store } = box.deps;
    const before = await store.events.lastSeq();
    await sendEmail(box.deps, box.who, {
      from: account,
      to: ['alice@example.com'],
      subject: 'Sent once',
      text: 'Sent body text.',
      html: '<p>Sent body html.</p>',
    });
    const [event] = await (await feed({ account, lastEventId: before })).take();
    expect(event!.type).toBe('email.sent');
    const { email } = payloadOf(event!).data;
    expect(email.subject).toBe('Sent once');
    expect(email.text).toContain('Sent body text.');
    expect(email.html).toContain('<p>Sent body html.</p>');
    const stored = await storedRow(event!.seq);
    expect(stored.body_of).not.toBeNull();
    expect(JSON.parse(stored.payload).data.email.text).toBe('');
  });

  it('feeds all your inboxes without account, one with it, and never anyone else’s', async () => {
    const { inbox: second } = await box.addInbox('second@mailroom.test', 'owner');
    const all = await feed();
    const one = await feed({ account: second.address });
    const theirs = await feed({}, dave.who);

    await mail('For dave', 'x', dave.inbox);
    await mail('To main');
    await mail('To second', 'x', second);

    expect(subjects(await all.take())).toEqual(['To main', 'To second']);
    expect(subjects(await one.take())).toEqual(['To second']);
    const daves = await theirs.take();
    expect(daves.map((row) => payloadOf(row).data)).toEqual([
      expect.objectContaining({
        account: dave.address,
        email: expect.objectContaining({ subject: 'For dave' }),
      }),
    ]);
  });

  it("refuses another user's inbox", async () => {
    expect(await refusal(feed({ account: dave.address }))).toBeInstanceOf(Forbidden);
  });
});
