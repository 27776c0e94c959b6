import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('reply and forward', () => {
  let server: TestServer;
  let bob: { key: string; inbox: string };
  let original: { uid: number; messageId: string; threadId: string };

  beforeAll(async () => {
    server = await startServer();
    bob = await server.addUser('bob');
    await server.sendMail({
      from: 'Alice Doe <alice@example.com>',
      to: [server.inbox, 'carol@example.org'],
      cc: bob.inbox,
      subject: 'Project plan',
      text: 'Hello agent,\nplease review the plan.',
      messageId: '<plan-1@example.com>',
      references: '<kickoff@example.com>',
      attachments: [{ filename: 'plan.txt', content: 'step 1, step 2' }],
    });
    const list = await server.api(`/emails?account=${server.inbox}`);
    const email = list.json.data.emails[0];
    original = { uid: email.uid, messageId: email.messageId, threadId: email.threadId };
  });
  afterAll(async () => server.stop());

  const reply = (
    uid: number,
    body: unknown,
    query = '',
    init: { key?: string; headers?: Record<string, string> } = {},
  ) => server.api(`/emails/${uid}/reply?account=${server.inbox}${query}`, { method: 'POST', body, ...init });

  async function rawOf(account: string, uid: number, key = server.key) {
    const res = await server.api(`/emails/${uid}/raw?account=${account}`, { key });
    return simpleParser(res.text);
  }

  it('replies to the sender with Re:, In-Reply-To, References, a quote, and flags the original \\Answered', async () => {
    const res = await reply(original.uid, { text: 'Looks good.' });
    expect(res.status).toBe(200);
    const data = res.json.data;
    expect(data).toMatchObject({
      from: server.inbox,
      to: ['alice@example.com'],
      cc: [],
      subject: 'Re: Project plan',
      inReplyTo: '<plan-1@example.com>',
      references: '<kickoff@example.com> <plan-1@example.com>',
      savedToSent: true,
      threadId: original.threadId,
    });
    expect(data.messageId).toMatch(/^<.+@mailroom\.test>$/);
    expect(typeof data.uid).toBe('number');
    expect(res.json.message).toBeUndefined();

    const sent = await server.api(`/emails/${data.uid}?account=${server.inbox}&folder=Sent`);
    expect(sent.json.data.email.text).toContain('Looks good.');
    expect(sent.json.data.email.text).toMatch(/wrote:\n> Hello agent,\n> please review the plan\./);
    expect(sent.json.data.email.threadId).toBe(original.threadId);

    const parsed = await rawOf(server.inbox, data.uid);
    expect(parsed.inReplyTo).toBe('<plan-1@example.com>');
    expect(parsed.references).toEqual(['<kickoff@example.com>', '<plan-1@example.com>']);

    const after = await server.api(`/emails/${original.uid}?account=${server.inbox}`);
    expect(after.json.data.email.flags).toContain('\\Answered');
  });

  it('reply-all adds the original To and Cc minus the replying inbox; local ones get it in their thread', async () => {
    const res = await reply(original.uid, {
      text: 'Adding everyone.',
      replyAll: true,
      includeOriginal: false,
    });
    expect(res.status).toBe(200);
    expect(res.json.data.to).toEqual(['alice@example.com']);
    expect(res.json.data.cc).toEqual(['carol@example.org', bob.inbox]);
    expect(res.json.data.delivery).toEqual([
      { recipient: 'alice@example.com', status: 'captured' },
      { recipient: 'carol@example.org', status: 'captured' },
      { recipient: bob.inbox, status: 'delivered' },
    ]);

    const bobs = await server.api(`/emails?account=${bob.inbox}`, { key: bob.key });
    const [theReply, theOriginal] = bobs.json.data.emails;
    expect(theReply.subject).toBe('Re: Project plan');
    expect(theReply.text.trim()).toBe('Adding everyone.');
    expect(theOriginal.subject).toBe('Project plan');
    expect(theReply.threadId).toBe(theOriginal.threadId);
  });

  it('goes to Reply-To when the original has one', async () => {
    await server.sendMail({
      from: 'newsletter@example.com',
      replyTo: 'replies@example.com',
      to: server.inbox,
      subject: 'Weekly news',
      text: 'news',
    });
    const list = await server.api(`/emails?account=${server.inbox}&subject=Weekly`);
    const res = await reply(list.json.data.emails[0].uid, { html: '<p>Thanks</p>' });
    expect(res.status).toBe(200);
    expect(res.json.data.to).toEqual(['replies@example.com']);
  });

  it('answers a message in another folder when folder is given (a follow-up to one of my sent mails)', async () => {
    const sent = await server.api('/emails/send', {
      method: 'POST',
      body: { from: server.inbox, to: 'dan@example.com', subject: 'Ping', text: 'ping' },
    });
    const res = await reply(sent.json.data.uid, { text: 'ping again' }, '&folder=Sent');
    expect(res.status).toBe(200);
    expect(res.json.data.to).toEqual(['dan@example.com']);
    expect(res.json.data.threadId).toBe(sent.json.data.threadId);
  });

  it('threads both sides of a local conversation', async () => {
    const sent = await server.api('/emails/send', {
      method: 'POST',
      body: { from: server.inbox, to: bob.inbox, subject: 'Lunch?', text: 'noon?' },
    });
    const bobs = await server.api(`/emails?account=${bob.inbox}&subject=Lunch`, { key: bob.key });
    const received = bobs.json.data.emails[0];
    const answer = await server.api(`/emails/${received.uid}/reply?account=${bob.inbox}`, {
      method: 'POST',
      body: { text: 'yes' },
      key: bob.key,
    });
    expect(answer.status).toBe(200);
    expect(answer.json.data.threadId).toBe(received.threadId);
    const mine = await server.api(`/emails?account=${server.inbox}&subject=Lunch`);
    const back = mine.json.data.emails.find((e: { subject: string }) => e.subject === 'Re: Lunch?');
    expect(back.threadId).toBe(sent.json.data.threadId);
    expect(back.inReplyTo).toBe(sent.json.data.messageId);
  });

  it('forwards with Fwd:, the header block, the original attachments and threading headers', async () => {
    const res = await server.api(`/emails/${original.uid}/forward?account=${server.inbox}`, {
      method: 'POST',
      body: { to: 'erin@example.com', text: 'FYI' },
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      to: ['erin@example.com'],
      subject: 'Fwd: Project plan',
      inReplyTo: '<plan-1@example.com>',
      savedToSent: true,
    });
    const parsed = await rawOf(server.inbox, res.json.data.uid);
    expect(parsed.text).toContain('FYI');
    expect(parsed.text).toContain('---------- Forwarded message ---------');
    expect(parsed.text).toContain('From: Alice Doe <alice@example.com>');
    expect(parsed.text).toContain('please review the plan.');
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['plan.txt']);
    expect(parsed.inReplyTo).toBe('<plan-1@example.com>');
    expect(parsed.references).toEqual(['<kickoff@example.com>', '<plan-1@example.com>']);

    const bare = await server.api(`/emails/${original.uid}/forward?account=${server.inbox}`, {
      method: 'POST',
      body: { to: ['erin@example.com'], includeAttachments: false },
    });
    expect((await rawOf(server.inbox, bare.json.data.uid)).attachments).toHaveLength(0);
  });

  it('an idempotent reply retry sends one reply', async () => {
    const headers = { 'Idempotency-Key': 'reply-1' };
    const first = await reply(original.uid, { text: 'once' }, '', { headers });
    const again = await reply(original.uid, { text: 'once' }, '', { headers });
    expect(again.json).toEqual(first.json);
    const sent = await server.api(`/emails?account=${server.inbox}&folder=Sent&q=once`);
    expect(sent.json.data.emails).toHaveLength(1);
    const clash = await reply(original.uid, { text: 'twice' }, '', { headers });
    expect(clash.status).toBe(409);
  });

  describe('errors', () => {
    it('400 naming text and html when neither is given', async () => {
      const res = await reply(original.uid, { replyAll: true });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('validation_error');
      const paths = res.json.error.details.map((d: { path: string }) => d.path);
      expect(paths).toEqual(['text', 'html']);
    });

    it('400 without account, 400 for a non-integer id', async () => {
      const noAccount = await server.api(`/emails/${original.uid}/reply`, {
        method: 'POST',
        body: { text: 'x' },
      });
      expect(noAccount.status).toBe(400);
      expect(noAccount.json.error.details[0].path).toBe('account');
      const badId = await server.api(`/emails/abc/reply?account=${server.inbox}`, {
        method: 'POST',
        body: { text: 'x' },
      });
      expect(badId.status).toBe(400);
    });

    it('404 for an unknown uid or the wrong folder', async () => {
      expect((await reply(99999, { text: 'x' })).status).toBe(404);
      const wrongFolder = await reply(original.uid, { text: 'x' }, '&folder=Sent');
      expect(wrongFolder.status).toBe(404);
      expect(wrongFolder.json.error.code).toBe('not_found');
      const fwd = await server.api(`/emails/99999/forward?account=${server.inbox}`, {
        method: 'POST',
        body: { to: 'x@example.com' },
      });
      expect(fwd.status).toBe(404);
    });

    it('403 replying from another user’s inbox', async () => {
      const res = await server.api(`/emails/${original.uid}/reply?account=${bob.inbox}`, {
        method: 'POST',
        body: { text: 'x' },
      });
      expect(res.status).toBe(403);
    });

    it('forward: 400 without to, 400 with a bad address path', async () => {
      const none = await server.api(`/emails/${original.uid}/forward?account=${server.inbox}`, {
        method: 'POST',
        body: { text: 'x' },
      });
      expect(none.status).toBe(400);
      expect(none.json.error.details[0].path).toBe('to');
      const bad = await server.api(`/emails/${original.uid}/forward?account=${server.inbox}`, {
        method: 'POST',
        body: { to: ['fine@example.com', 'nope'] },
      });
      expect(bad.status).toBe(400);
      expect(bad.json.error.details[0].path).toBe('to.1');
    });
  });
});
