// Engines: SQLite only: sending through an IMAP account's SMTP and filing in its Sent, a protocol rule; postgres-doors syncs on PostgreSQL.
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../helpers/dovecot.js';
import { eventuallyFolder, listFolder, remoteFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';
import { eventually } from '../helpers/server.js';

describe('sending and drafting from an IMAP mailbox', () => {
  let world: ImapWorld;
  const acc = () => `account=${encodeURIComponent(world.address)}`;

  beforeAll(async () => {
    world = await startImapWorld();
    await world.other.append(
      'INBOX',
      rawMessage({ from: 'Carol <carol@example.net>', subject: 'Question', messageId: '<q1@example.net>' }),
      [],
    );
    expect((await world.connect()).status).toBe(201);
    await eventuallyFolder(world, 'INBOX', (e) => e.length === 1);
  });
  afterAll(async () => world.stop());

  it('sends through the mailbox SMTP server and appends to the remote Sent', async () => {
    const res = await world.server.api('/emails/send', {
      body: { from: world.address, to: 'dave@example.com', subject: 'Hello Dave', text: 'Hi from the agent' },
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      savedToSent: true,
      delivery: [{ recipient: 'dave@example.com', status: 'delivered' }],
    });
    expect(world.capture.messages).toHaveLength(1);
    expect(world.capture.messages[0]!.to).toEqual(['dave@example.com']);
    expect(world.capture.messages[0]!.raw.toString()).toContain('Subject: Hello Dave');
    const sent = await remoteFolder(world.other, 'Sent');
    expect(sent.map((m) => m.subject)).toEqual(['Hello Dave']);
    expect(sent[0]!.flags).toContain('\\Seen');
    // The local Sent copy is the remote one: a sync pass later it is still there once.
    await new Promise((r) => setTimeout(r, 600));
    const local = await listFolder(world, 'Sent');
    expect(local.map((e) => e.subject)).toEqual(['Hello Dave']);
    expect(local[0].uid).toBe(res.json.data.uid);
  });

  it('replies (the original flagged \\Answered remotely) and forwards', async () => {
    const [question] = await listFolder(world, 'INBOX');
    const reply = await world.server.api(`/emails/${question.uid}/reply?${acc()}`, {
      body: { text: 'Here is the answer' },
    });
    expect(reply.status).toBe(200);
    expect(reply.json.data).toMatchObject({ to: ['carol@example.net'], inReplyTo: '<q1@example.net>' });
    const forward = await world.server.api(`/emails/${question.uid}/forward?${acc()}`, {
      body: { to: 'erin@example.org', text: 'FYI' },
    });
    expect(forward.status).toBe(200);

    expect(world.capture.messages.map((m) => m.to)).toEqual([
      ['dave@example.com'],
      ['carol@example.net'],
      ['erin@example.org'],
    ]);
    const replied = await simpleParser(world.capture.messages[1]!.raw);
    expect(replied.inReplyTo).toBe('<q1@example.net>');
    expect((await remoteFolder(world.other, 'INBOX'))[0]!.flags).toContain('\\Answered');
    expect((await remoteFolder(world.other, 'Sent')).map((m) => m.subject).sort()).toEqual([
      'Fwd: Question',
      'Hello Dave',
      'Re: Question',
    ]);
    const local = await eventuallyFolder(world, 'INBOX', (e) => e[0]?.flags.includes('\\Answered'));
    expect(local).toHaveLength(1);
  });

  it('answers 502 and stores nothing when the SMTP server refuses every recipient', async () => {
    world.capture.respondAll(550);
    try {
      const before = (await listFolder(world, 'Sent')).length;
      const res = await world.server.api('/emails/send', {
        body: { from: world.address, to: 'nobody@example.com', subject: 'Refused', text: 'x' },
      });
      expect(res.status).toBe(502);
      expect(res.json.error.code).toBe('upstream_error');
      expect(await listFolder(world, 'Sent')).toHaveLength(before);
      expect((await remoteFolder(world.other, 'Sent')).map((m) => m.subject)).not.toContain('Refused');
    } finally {
      world.capture.respondAll(null);
    }
  });

  it('keeps drafts in the remote Drafts: created, replaced on update, gone when sent', async () => {
    const created = await world.server.api('/emails/drafts', {
      body: { account: world.address, to: 'frank@example.com', subject: 'Draft v1', text: 'first' },
    });
    expect(created.status).toBe(201);
    const uid = created.json.data.draft.uid;
    let drafts = await remoteFolder(world.other, 'Drafts');
    expect(drafts.map((m) => m.subject)).toEqual(['Draft v1']);
    expect(drafts[0]!.flags).toContain('\\Draft');

    const updated = await world.server.api(`/emails/drafts/${uid}`, {
      method: 'PUT',
      body: { account: world.address, subject: 'Draft v2' },
    });
    expect(updated.status).toBe(200);
    expect(updated.json.data.draft).toMatchObject({ uid, subject: 'Draft v2' });
    drafts = await remoteFolder(world.other, 'Drafts');
    expect(drafts.map((m) => m.subject)).toEqual(['Draft v2']);

    const sent = await world.server.api(`/emails/drafts/${uid}/send`, { body: { account: world.address } });
    expect(sent.status).toBe(200);
    expect(sent.json.data.uid).toBe(uid);
    expect(await remoteFolder(world.other, 'Drafts')).toEqual([]);
    expect((await remoteFolder(world.other, 'Sent')).map((m) => m.subject)).toContain('Draft v2');
    expect(world.capture.messages.at(-1)!.to).toEqual(['frank@example.com']);
    await new Promise((r) => setTimeout(r, 600));
    expect(await listFolder(world, 'Drafts')).toEqual([]);
  });

  it('deletes a draft remotely', async () => {
    const created = await world.server.api('/emails/drafts', {
      body: { account: world.address, subject: 'Throwaway', text: 'x' },
    });
    const uid = created.json.data.draft.uid;
    expect((await remoteFolder(world.other, 'Drafts')).map((m) => m.subject)).toEqual(['Throwaway']);
    const res = await world.server.api(`/emails/drafts/${uid}?${acc()}`, { method: 'DELETE' });
    expect(res.json.data).toEqual({ uid, deleted: true });
    expect(await remoteFolder(world.other, 'Drafts')).toEqual([]);
  });

  it('takes a draft sent later out of the remote Drafts, and no sync brings it back', async () => {
    const created = await world.server.api('/emails/drafts', {
      body: { account: world.address, to: 'gina@example.com', subject: 'Later', text: 'in an hour' },
    });
    const uid = created.json.data.draft.uid;
    expect((await remoteFolder(world.other, 'Drafts')).map((m) => m.subject)).toEqual(['Later']);
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    const held = await world.server.api(`/emails/drafts/${uid}/send`, {
      body: { account: world.address, sendAt },
    });
    expect(held.status).toBe(202);
    expect(held.json.data).toMatchObject({ status: 'scheduled' });
    expect(await remoteFolder(world.other, 'Drafts')).toEqual([]);
    // A message the server holds that the sync has not seen arrives with the next pass: one more
    // draft, appended by another mail program, shows that a pass has run since.
    await world.other.append('Drafts', rawMessage({ from: world.address, subject: 'Marker' }), ['\\Draft']);
    const drafts = await eventuallyFolder(world, 'Drafts', (e) => e.some((d) => d.subject === 'Marker'));
    expect(drafts.map((d) => d.subject)).toEqual(['Marker']);
    expect((await listFolder(world, 'Outbox')).map((e) => e.subject)).toEqual(['Later']);

    // Cancelled, it is a draft again on both sides, and can be deleted like any other.
    const cancelled = await world.server.api(`/emails/${uid}/cancel?${acc()}`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect((await remoteFolder(world.other, 'Drafts')).map((m) => m.subject).sort()).toEqual([
      'Later',
      'Marker',
    ]);
    const deleted = await world.server.api(`/emails/drafts/${uid}?${acc()}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect((await remoteFolder(world.other, 'Drafts')).map((m) => m.subject)).toEqual(['Marker']);
  });

  it('holds one copy of every message after all of it', async () => {
    await new Promise((r) => setTimeout(r, 600));
    for (const folder of ['INBOX', 'Sent', 'Drafts']) {
      const remote = await remoteFolder(world.other, folder);
      const local = await eventually(async () => {
        const list = await listFolder(world, folder);
        return list.length === remote.length ? list : null;
      });
      expect(new Set(local.map((e) => e.messageId)).size).toBe(local.length);
    }
  });
});
