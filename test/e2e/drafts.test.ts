import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('drafts', () => {
  let server: TestServer;
  let bob: { key: string; inbox: string };

  beforeAll(async () => {
    server = await startServer();
    bob = await server.addUser('bob');
  });
  afterAll(async () => server.stop());

  const create = (body: unknown) => server.api('/emails/drafts', { method: 'POST', body });
  const update = (uid: number, body: unknown) => server.api(`/emails/drafts/${uid}`, { method: 'PUT', body });
  const sendDraft = (uid: number, headers: Record<string, string> = {}) =>
    server.api(`/emails/drafts/${uid}/send`, { method: 'POST', body: { account: server.inbox }, headers });

  it('creates a draft in Drafts as real MIME with \\Draft, listed with folder=Drafts', async () => {
    const res = await create({
      account: server.inbox,
      to: ['alice@example.com'],
      cc: ['carol@example.org'],
      bcc: ['dave@example.net'],
      subject: 'Proposal',
      text: 'First version',
      attachments: [
        { filename: 'notes.txt', contentType: 'text/plain', content: Buffer.from('n').toString('base64') },
      ],
    });
    expect(res.status).toBe(201);
    const draft = res.json.data.draft;
    expect(draft).toMatchObject({
      from: server.inbox,
      to: ['alice@example.com'],
      cc: ['carol@example.org'],
      bcc: ['dave@example.net'],
      subject: 'Proposal',
      text: expect.stringContaining('First version'),
      attachments: [expect.objectContaining({ filename: 'notes.txt' })],
    });
    expect(draft.flags).toContain('\\Draft');
    expect(typeof draft.uid).toBe('number');

    const list = await server.api(`/emails?account=${server.inbox}&folder=Drafts`);
    expect(list.json.data.emails.map((e: { uid: number }) => e.uid)).toContain(draft.uid);
    const one = await server.api(`/emails/${draft.uid}?account=${server.inbox}&folder=Drafts`);
    expect(one.status).toBe(200);
    expect(one.json.data.email.flags).toContain('\\Draft');

    const raw = await server.api(`/emails/${draft.uid}/raw?account=${server.inbox}`);
    const parsed = await simpleParser(raw.text);
    expect(parsed.subject).toBe('Proposal');
    expect(parsed.attachments).toHaveLength(1);
  });

  it('may start with no recipient and no subject', async () => {
    const res = await create({ account: server.inbox, text: 'just an idea' });
    expect(res.status).toBe(201);
    expect(res.json.data.draft).toMatchObject({ to: [], subject: '', text: expect.stringContaining('idea') });
  });

  it('updates by merging: fields given replace, absent ones stay, the uid stays', async () => {
    const created = await create({
      account: server.inbox,
      to: ['alice@example.com'],
      bcc: ['dave@example.net'],
      subject: 'Budget',
      text: 'draft 1',
      attachments: [{ filename: 'a.txt', content: Buffer.from('a').toString('base64') }],
    });
    const uid = created.json.data.draft.uid;
    const res = await update(uid, { account: server.inbox, subject: 'Budget 2027', text: 'draft 2' });
    expect(res.status).toBe(200);
    expect(res.json.data.draft).toMatchObject({
      uid,
      to: ['alice@example.com'],
      bcc: ['dave@example.net'],
      subject: 'Budget 2027',
      text: expect.stringContaining('draft 2'),
      attachments: [expect.objectContaining({ filename: 'a.txt' })],
    });
    const again = await update(uid, { account: server.inbox, to: ['bob@example.com', 'zed@example.com'] });
    expect(again.json.data.draft).toMatchObject({
      uid,
      to: ['bob@example.com', 'zed@example.com'],
      subject: 'Budget 2027',
    });
    const drafts = await server.api(`/emails?account=${server.inbox}&folder=Drafts&subject=Budget`);
    expect(drafts.json.data.emails).toHaveLength(1);
  });

  it('a new html replaces a text that was only derived from the old html', async () => {
    const created = await create({ account: server.inbox, html: '<p>Old words</p>' });
    const uid = created.json.data.draft.uid;
    const res = await update(uid, { account: server.inbox, html: '<p>New words</p>' });
    expect(res.json.data.draft.text).toContain('New words');
    expect(res.json.data.draft.text).not.toContain('Old words');
  });

  it('inReplyTo (a uid) sets the threading headers and the thread', async () => {
    await server.sendMail({
      from: 'alice@example.com',
      to: server.inbox,
      subject: 'Question',
      text: 'What do you think?',
      messageId: '<question-1@example.com>',
    });
    const inbox = await server.api(`/emails?account=${server.inbox}&subject=Question`);
    const question = inbox.json.data.emails[0];
    const res = await create({
      account: server.inbox,
      to: ['alice@example.com'],
      text: 'Thinking...',
      inReplyTo: question.uid,
    });
    expect(res.status).toBe(201);
    expect(res.json.data.draft).toMatchObject({
      inReplyTo: '<question-1@example.com>',
      references: ['<question-1@example.com>'],
      subject: 'Re: Question',
      threadId: question.threadId,
    });
    const sent = await sendDraft(res.json.data.draft.uid);
    expect(sent.status).toBe(200);
    expect(sent.json.data.threadId).toBe(question.threadId);
    const raw = await server.api(`/emails/${sent.json.data.uid}/raw?account=${server.inbox}`);
    const parsed = await simpleParser(raw.text);
    expect(parsed.inReplyTo).toBe('<question-1@example.com>');
  });

  it('sending moves the draft from Drafts to Sent with the same uid and answers like send', async () => {
    const created = await create({
      account: server.inbox,
      to: [bob.inbox, 'alice@example.com'],
      bcc: ['dave@example.net'],
      subject: 'Final plan',
      text: 'Here it is.',
    });
    const uid = created.json.data.draft.uid;
    const res = await sendDraft(uid);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      uid,
      from: server.inbox,
      to: [bob.inbox, 'alice@example.com'],
      subject: 'Final plan',
      savedToSent: true,
      delivery: [
        { recipient: bob.inbox, status: 'delivered' },
        { recipient: 'alice@example.com', status: 'captured' },
        { recipient: 'dave@example.net', status: 'captured' },
      ],
    });
    const inDrafts = await server.api(`/emails/${uid}?account=${server.inbox}&folder=Drafts`);
    expect(inDrafts.status).toBe(404);
    const inSent = await server.api(`/emails/${uid}?account=${server.inbox}&folder=Sent`);
    expect(inSent.status).toBe(200);
    expect(inSent.json.data.email.flags).toEqual(['\\Seen']);
    expect(inSent.json.data.email.bcc).toEqual(['dave@example.net']);
    const sentRaw = await server.api(`/emails/${uid}/raw?account=${server.inbox}`);
    expect(sentRaw.text).not.toMatch(/^bcc:/im);

    const bobs = await server.api(`/emails?account=${bob.inbox}&subject=Final`, { key: bob.key });
    expect(bobs.json.data.emails).toHaveLength(1);
    expect(bobs.json.data.emails[0].flags).not.toContain('\\Draft');

    const twice = await sendDraft(uid);
    expect(twice.status).toBe(404);
  });

  it('keeps its Message-ID across updates, and the sent message carries it', async () => {
    const created = await create({ account: server.inbox, to: [bob.inbox], subject: 'Stable', text: 'v1' });
    const { uid, messageId } = created.json.data.draft;
    expect(messageId).toMatch(/^<.+@.+>$/);
    const first = await update(uid, { account: server.inbox, text: 'v2' });
    const second = await update(uid, { account: server.inbox, subject: 'Stable id', to: [bob.inbox] });
    expect([first.json.data.draft.messageId, second.json.data.draft.messageId]).toEqual([
      messageId,
      messageId,
    ]);
    const inDrafts = await server.api(`/emails/${uid}?account=${server.inbox}&folder=Drafts`);
    expect(inDrafts.json.data.email.messageId).toBe(messageId);

    const sent = await sendDraft(uid);
    expect(sent.status).toBe(200);
    expect(sent.json.data.messageId).toBe(messageId);
    const sentRaw = await simpleParser((await server.api(`/emails/${uid}/raw?account=${server.inbox}`)).text);
    expect(sentRaw.messageId).toBe(messageId);
    const bobs = await server.api(`/emails?account=${bob.inbox}&subject=Stable`, { key: bob.key });
    expect(bobs.json.data.emails.map((e: { messageId: string }) => e.messageId)).toEqual([messageId]);
  });

  it('an idempotent draft send retried returns the first result instead of 404', async () => {
    const created = await create({
      account: server.inbox,
      to: ['x@example.com'],
      subject: 'Idem',
      text: 'x',
    });
    const uid = created.json.data.draft.uid;
    const headers = { 'Idempotency-Key': 'draft-send-1' };
    const [a, ...rest] = await Promise.all(Array.from({ length: 6 }, () => sendDraft(uid, headers)));
    expect(a!.status).toBe(200);
    for (const other of rest) expect(other.json).toEqual(a!.json);
    const sent = await server.api(`/emails?account=${server.inbox}&folder=Sent&subject=Idem`);
    expect(sent.json.data.emails).toHaveLength(1);
  });

  it('deletes a draft without sending it', async () => {
    const created = await create({
      account: server.inbox,
      to: ['x@example.com'],
      subject: 'Scrap',
      text: 'x',
    });
    const uid = created.json.data.draft.uid;
    const res = await server.api(`/emails/drafts/${uid}?account=${server.inbox}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ uid, deleted: true });
    expect((await server.api(`/emails/${uid}?account=${server.inbox}&folder=Drafts`)).status).toBe(404);
    const sent = await server.api(`/emails?account=${server.inbox}&folder=Sent&subject=Scrap`);
    expect(sent.json.data.emails).toHaveLength(0);
    const trash = await server.api(`/emails?account=${server.inbox}&folder=Trash&subject=Scrap`);
    expect(trash.json.data.emails).toHaveLength(0);
  });

  describe('errors', () => {
    it('404 for an unknown draft, and for a uid that is not in Drafts', async () => {
      expect((await update(99999, { account: server.inbox, subject: 'x' })).status).toBe(404);
      expect((await sendDraft(99999)).status).toBe(404);
      const del = await server.api(`/emails/drafts/99999?account=${server.inbox}`, { method: 'DELETE' });
      expect(del.status).toBe(404);
      const sent = await server.api('/emails/send', {
        method: 'POST',
        body: { from: server.inbox, to: 'x@example.com', subject: 'not a draft', text: 'x' },
      });
      const notDraft = await update(sent.json.data.uid, { account: server.inbox, subject: 'edit' });
      expect(notDraft.status).toBe(404);
      expect(notDraft.json.error.code).toBe('not_found');
    });

    it('403 on another user’s inbox', async () => {
      const res = await server.api('/emails/drafts', {
        method: 'POST',
        body: { account: bob.inbox, subject: 'x' },
      });
      expect(res.status).toBe(403);
    });

    it('400 for a bad address, a missing account, or sending a draft with no recipient', async () => {
      const bad = await create({ account: server.inbox, to: ['nope'] });
      expect(bad.status).toBe(400);
      expect(bad.json.error.details[0].path).toBe('to.0');
      const noAccount = await create({ subject: 'x' });
      expect(noAccount.status).toBe(400);
      expect(noAccount.json.error.details[0].path).toBe('account');
      const empty = await create({ account: server.inbox, text: 'to nobody' });
      const res = await sendDraft(empty.json.data.draft.uid);
      expect(res.status).toBe(400);
      expect(res.json.error.details[0].path).toBe('to');
      const unknownReply = await create({ account: server.inbox, inReplyTo: 99999 });
      expect(unknownReply.status).toBe(400);
      expect(unknownReply.json.error.details[0].path).toBe('inReplyTo');
    });
  });
});
