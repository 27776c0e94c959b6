import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approveSend, cancelSend, listApprovals, rejectSend } from '../../src/mailbox/approvals/approvals.js';
import { createHeldSendWorker } from '../../src/mailbox/approvals/held-worker.js';
import type { Caller, Permission } from '../../src/mailbox/caller.js';
import { PERMISSIONS, ownerCaller } from '../../src/mailbox/caller.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { MailroomError } from '../../src/mailbox/errors.js';
import { createDraft, sendDraft } from '../../src/mailbox/drafts/drafts.js';
import { updateInboxSettings } from '../../src/mailbox/limits/inbox-settings.js';
import { addEntry } from '../../src/mailbox/policy/lists.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import { resetMailboxes } from '../../src/mailbox/operations/reset.js';
import { replyToEmail } from '../../src/mailbox/sending/reply-forward.js';
import { sendEmail } from '../../src/mailbox/sending/send.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import type { InProcess } from '../helpers/in-process.js';
import { inProcessInbox } from '../helpers/in-process.js';
import { eventually } from '../helpers/server.js';

// Contract 15's rules on the project's engine: modes, waiting sends and their decisions, expiry,
// scheduled sends and cancel, as every door meets them.
describe('a person in the loop: modes, approvals, scheduled sends', () => {
  let env: InProcess;
  let deps: MailboxDeps;
  let inbox: InboxRow;

  // The default TTL (72 hours): only the expiry test, with an inbox of its own, waits seconds.
  const open = async (options: Parameters<typeof inProcessInbox>[1] = {}) => {
    env = await inProcessInbox('agent@mailroom.test', options);
    ({ deps, inbox } = env);
  };
  beforeEach(() => open());
  afterEach(async () => env.close());

  const owner = () => ownerCaller(inbox.user_id);
  const key = (keyId: string, permissions: readonly Permission[] = PERMISSIONS): Caller => ({
    userId: inbox.user_id,
    keyId,
    inboxes: null,
    permissions: new Set(permissions),
  });
  const agent = {
    get userId() {
      return inbox.user_id;
    },
    keyId: 'key_agent',
    inboxes: null,
    permissions: new Set<Permission>(['read', 'send']),
  };
  const mode = (m: 'autonomous' | 'approve_new' | 'approve_all' | 'read_only') =>
    updateInboxSettings(deps, owner(), inbox.address, { mode: m });
  const send = (to: string[], subject = 'hello', extra: { sendAt?: string } = {}, who: Caller = agent) =>
    sendEmail(deps, who, { from: inbox.address, to, subject, text: 'hi', ...extra });
  const folder = async (name: string) =>
    (await listEmails(deps, owner(), { account: inbox.address, folder: name, limit: 100 })).emails;
  const subjects = async (name: string) => (await folder(name)).map((e) => e.subject);
  const eventsOf = async (type: string) =>
    (await deps.store.events.since([inbox.id], 0, 1000))
      .filter((e) => e.type === type)
      .map(
        (e) => JSON.parse(e.payload) as { data: Record<string, unknown> & { email: { subject: string } } },
      );
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'no error',
      (error: unknown) => (error instanceof MailroomError ? error.code : error),
    );

  it('approve_new holds a send to anyone the inbox never exchanged mail with, and lets the others go', async () => {
    await env.deliver({ from: 'known@example.com', to: inbox.address, subject: 'hello there', text: 'hi' });
    await addEntry(
      deps,
      owner(),
      { direction: 'receive', type: 'block', account: inbox.address },
      { entry: 'spammy@example.com' },
    );
    await env.deliver({ from: 'spammy@example.com', to: inbox.address, subject: 'buy', text: 'now' });
    expect(await subjects('Spam')).toEqual(['buy']);
    await send(['earlier@example.com'], 'before the mode');
    await mode('approve_new');

    const toKnown = await send(['Known@Example.com'], 'to a sender');
    expect(toKnown.status).toBeUndefined();
    expect((await send(['earlier@example.com'], 'to one it wrote to')).status).toBeUndefined();
    const toSpam = await send(['spammy@example.com'], 'to a spam sender');
    expect(toSpam).toMatchObject({
      status: 'pending_approval',
      approvalId: expect.stringMatching(/^apr_/),
      delivery: [],
    });
    const mixed = await send(['known@example.com', 'stranger@example.com'], 'one new among them');
    expect(mixed.status).toBe('pending_approval');

    expect(await subjects('Sent')).toEqual(['to one it wrote to', 'to a sender', 'before the mode']);
    expect((await subjects('Outbox')).sort()).toEqual(['one new among them', 'to a spam sender']);
    const waiting = await eventsOf('email.pending_approval');
    expect(waiting.map((e) => e.data.email.subject).sort()).toEqual([
      'one new among them',
      'to a spam sender',
    ]);
    expect(waiting.find((e) => e.data.email.subject === 'one new among them')?.data).toMatchObject({
      requestedBy: 'key_agent',
      reason: expect.stringContaining('stranger@example.com'),
    });
  });

  it('approve_all holds every send, reply and draft send; read_only refuses them', async () => {
    await env.deliver({ from: 'bob@example.com', to: inbox.address, subject: 'question', text: '?' });
    await mode('approve_all');
    expect((await send(['bob@example.com'])).status).toBe('pending_approval');
    const [question] = await folder('INBOX');
    const reply = await replyToEmail(
      deps,
      agent,
      { account: inbox.address, uid: question!.uid },
      { text: 'answer' },
    );
    expect(reply.status).toBe('pending_approval');
    const draft = await createDraft(deps, agent, inbox.address, {
      to: 'bob@example.com',
      subject: 'drafted',
      text: 'x',
    });
    const sent = await sendDraft(deps, agent, inbox.address, draft.uid);
    expect(sent).toMatchObject({ status: 'pending_approval', uid: draft.uid });
    expect(await subjects('Drafts')).toEqual([]);
    expect(await subjects('Sent')).toEqual([]);
    expect(
      (await listApprovals(deps, agent, { account: inbox.address })).map((a) => a.email.subject),
    ).toEqual(['hello', 'Re: question', 'drafted']);
    await mode('read_only');
    expect(await codeOf(send(['bob@example.com']))).toBe('forbidden');
  });

  it('reset empties Outbox and forgets whom the inbox exchanged mail with', async () => {
    await env.deliver({ from: 'known@example.com', to: inbox.address, subject: 'hi', text: 'hi' });
    await mode('approve_new');
    expect((await send(['stranger@example.com'])).status).toBe('pending_approval');
    expect((await send(['known@example.com'])).status).toBeUndefined();
    await resetMailboxes(deps);
    expect(await listApprovals(deps, owner(), {})).toEqual([]);
    expect(await subjects('Outbox')).toEqual([]);
    expect((await send(['known@example.com'])).status).toBe('pending_approval');
  });

  it('is decided by another key with approve, never by the key that asked, nor one without approve; once', async () => {
    await mode('approve_all');
    const asked = await send(['bob@example.com'], 'please', {}, key('key_both'));
    const id = asked.approvalId!;
    expect(await codeOf(approveSend(deps, key('key_both'), id))).toBe('forbidden');
    expect(await codeOf(approveSend(deps, agent, id))).toBe('forbidden');
    expect(await codeOf(rejectSend(deps, agent, id))).toBe('forbidden');
    const approved = await approveSend(deps, key('key_boss'), id);
    expect(approved).toMatchObject({
      decision: 'approved',
      status: 'sent',
      email: { folder: 'Sent', subject: 'please', uid: asked.uid },
    });
    expect(await codeOf(approveSend(deps, key('key_boss'), id))).toBe('conflict');
    expect(await codeOf(rejectSend(deps, owner(), id))).toBe('conflict');
    expect(await subjects('Sent')).toEqual(['please']);
    expect(await subjects('Outbox')).toEqual([]);
    expect((await eventsOf('email.approved'))[0]?.data).toMatchObject({
      approvalId: id,
      decidedBy: 'key_boss',
    });
    expect(await eventsOf('email.sent')).toHaveLength(1);
  });

  it('a person rejects: back in Drafts with the reason; the draft can be sent again', async () => {
    await mode('approve_all');
    const asked = await send(['bob@example.com'], 'not this one');
    const rejected = await rejectSend(deps, owner(), asked.approvalId!, 'too pushy');
    expect(rejected.email).toMatchObject({
      folder: 'Drafts',
      rejectedReason: 'too pushy',
      to: ['bob@example.com'],
    });
    expect((await eventsOf('email.rejected'))[0]?.data).toMatchObject({
      reason: 'too pushy',
      approvalId: asked.approvalId,
    });
    expect(await folder('Drafts')).toMatchObject([{ subject: 'not this one', rejectedReason: 'too pushy' }]);
    await mode('autonomous');
    await sendDraft(deps, agent, inbox.address, asked.uid);
    expect(await subjects('Sent')).toEqual(['not this one']);
  });

  it('an approved send a rule now refuses is the approval answer and goes back to Drafts', async () => {
    await mode('approve_all');
    const asked = await send(['bob@example.com'], 'blocked later');
    await addEntry(
      deps,
      owner(),
      { direction: 'send', type: 'block', account: inbox.address },
      { entry: 'bob@example.com' },
    );
    expect(await codeOf(approveSend(deps, key('key_boss'), asked.approvalId!))).toBe('recipient_blocked');
    expect(await folder('Drafts')).toMatchObject([
      { subject: 'blocked later', rejectedReason: expect.stringContaining('recipient_blocked') },
    ]);
    expect(await subjects('Sent')).toEqual([]);
    expect(await codeOf(approveSend(deps, key('key_boss'), asked.approvalId!))).toBe('conflict');
  });

  it('expires a send nobody decided within MAILROOM_APPROVAL_TTL_HOURS', async () => {
    await env.close();
    await open({ approvalTtlHours: 0.0005 });
    await mode('approve_all');
    const asked = await send(['bob@example.com'], 'forgotten');
    const worker = createHeldSendWorker(deps, { intervalMs: 100 });
    worker.start();
    try {
      await eventually(async () => (await eventsOf('email.rejected')).length === 1, 30_000);
    } finally {
      await worker.stop();
    }
    expect((await eventsOf('email.rejected'))[0]?.data).toMatchObject({
      reason: 'expired',
      approvalId: asked.approvalId,
    });
    expect(await folder('Drafts')).toMatchObject([{ subject: 'forgotten', rejectedReason: 'expired' }]);
    expect(await codeOf(approveSend(deps, key('key_boss'), asked.approvalId!))).toBe('conflict');
  });

  it('schedules a send: refused when not in the future or over a year ahead; kept in Outbox; cancelled back to Drafts', async () => {
    const past = await codeOf(send(['bob@example.com'], 'x', { sendAt: '2020-01-01T00:00:00Z' }));
    expect(past).toBe('validation_error');
    const far = new Date(Date.now() + 400 * 24 * 3600 * 1000).toISOString();
    expect(await codeOf(send(['bob@example.com'], 'x', { sendAt: far }))).toBe('validation_error');
    const at = new Date(Date.now() + 3600 * 1000).toISOString();
    const scheduled = await send(['bob@example.com'], 'later', { sendAt: at });
    expect(scheduled).toMatchObject({ status: 'scheduled', sendAt: at, delivery: [] });
    expect(await subjects('Outbox')).toEqual(['later']);
    expect((await eventsOf('email.scheduled'))[0]?.data).toMatchObject({ sendAt: at, approvalId: null });
    const cancelled = await cancelSend(deps, agent, inbox.address, scheduled.uid);
    expect(cancelled).toMatchObject({ folder: 'Drafts', rejectedReason: 'cancelled' });
    expect((await eventsOf('email.rejected'))[0]?.data).toMatchObject({ reason: 'cancelled' });
    expect(await codeOf(cancelSend(deps, agent, inbox.address, scheduled.uid))).toBe('not_found');
  });

  it('sends a scheduled send once at its time; approved early, it still waits for its time; a mode that now asks makes it wait', async () => {
    const soon = () => new Date(Date.now() + 1500).toISOString();
    await send(['bob@example.com'], 'on time', { sendAt: soon() });
    await mode('approve_all');
    const asked = await send(['bob@example.com'], 'approved early', { sendAt: soon() });
    expect(asked.status).toBe('pending_approval');
    const approved = await approveSend(deps, key('key_boss'), asked.approvalId!);
    expect(approved).toMatchObject({ status: 'scheduled', email: { folder: 'Outbox' } });
    const workers = [
      createHeldSendWorker(deps, { intervalMs: 50 }),
      createHeldSendWorker(deps, { intervalMs: 50 }),
    ];
    for (const w of workers) w.start();
    try {
      await eventually(async () => (await eventsOf('email.pending_approval')).length === 2, 30_000);
      await eventually(async () => (await subjects('Sent')).length === 1, 30_000);
    } finally {
      for (const w of workers) await w.stop();
    }
    expect(await subjects('Sent')).toEqual(['approved early']);
    expect(await eventsOf('email.sent')).toHaveLength(1);
    // Scheduled while autonomous, it met approve_all at its time: it waits for a person now.
    const [waiting] = await listApprovals(deps, owner(), {});
    expect(waiting).toMatchObject({ email: { subject: 'on time', folder: 'Outbox' } });
    await mode('autonomous');
    await approveSend(deps, key('key_boss'), waiting!.id);
    expect((await subjects('Sent')).sort()).toEqual(['approved early', 'on time']);
    expect(await subjects('Outbox')).toEqual([]);
  });
});
