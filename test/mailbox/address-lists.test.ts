import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { parseWithContract } from '../../src/contract/validation-messages.js';
import type { Caller } from '../../src/mailbox/caller.js';
import { ownerCaller } from '../../src/mailbox/caller.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { createDraft, sendDraft } from '../../src/mailbox/drafts/drafts.js';
import { MailroomError } from '../../src/mailbox/errors.js';
import { receiveMessage } from '../../src/mailbox/ingest/receive.js';
import { addLocalInbox } from '../../src/mailbox/operations/admin.js';
import type { ListRef } from '../../src/mailbox/policy/lists.js';
import { addEntry, listEntries, removeEntry } from '../../src/mailbox/policy/lists.js';
import { recipientFrom } from '../../src/mailbox/policy/receive-check.js';
import { liftSuppression, listSuppressions, suppressBounced } from '../../src/mailbox/policy/suppressions.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import { sendEmail } from '../../src/mailbox/sending/send.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { inProcessInbox } from '../helpers/in-process.js';

// The rules of allow and block lists and suppressions (contract 14), on the project's engine.
describe('allow and block lists, and suppressions', () => {
  let deps: MailboxDeps;
  let inbox: InboxRow;
  let other: InboxRow;
  let owner: Caller;
  let close: (() => Promise<void>) | undefined;
  const agent = 'agent@mailroom.test';

  beforeAll(async () => {
    ({ deps, inbox, close } = await inProcessInbox(agent));
    other = await addLocalInbox(deps, 'other@mailroom.test', 'owner');
    owner = ownerCaller(inbox.user_id);
  });
  afterAll(async () => close?.());
  beforeEach(async () => {
    await deps.store.reset.mail();
  });

  const put = (ref: ListRef, entry: string) => addEntry(deps, owner, ref, { entry });
  const sentCount = async (account = agent) =>
    (
      await listEmails(
        deps,
        ownerCaller(inbox.user_id),
        parseWithContract(ListEmailsQuery, { account, folder: 'Sent' }),
      )
    ).emails.length;

  /** The refusal of a send from `from` to these recipients, or null when it went. */
  async function refusal(to: string[], extra: { cc?: string[]; bcc?: string[]; from?: string } = {}) {
    try {
      await sendEmail(deps, ownerCaller(inbox.user_id), {
        from: extra.from ?? agent,
        to,
        subject: 'hi',
        text: 'hello',
        ...extra,
      });
      return null;
    } catch (error) {
      if (!(error instanceof MailroomError)) throw error;
      return { code: error.code, details: error.details };
    }
  }
  const reasonFor = async (address: string, from = agent) =>
    (await refusal([address], { from }))?.details?.[0]?.reason ?? 'sent';

  it("decides by the inbox's entries before the user's", async () => {
    await put({ direction: 'send', type: 'block' }, 'example.com');
    await put({ direction: 'send', type: 'allow', account: agent }, 'bob@example.com');
    expect(await reasonFor('bob@example.com')).toBe('sent');
    expect(await reasonFor('carol@example.com')).toBe('blocked');
    // The inbox's allow entry is that inbox's alone; its allow list makes others not_allowed there.
    expect(await reasonFor('bob@example.com', 'other@mailroom.test')).toBe('blocked');
    expect(await reasonFor('zed@elsewhere.org')).toBe('not_allowed');
    expect(await reasonFor('zed@elsewhere.org', 'other@mailroom.test')).toBe('sent');
  });

  it('decides by an address before its domain, and by the most specific domain first', async () => {
    const user = { direction: 'send', type: 'block' } as const;
    await put(user, 'example.com');
    await put({ ...user, type: 'allow' }, 'news.example.com');
    await put({ ...user, type: 'allow' }, 'eve@mail.example.com');
    await put(user, 'x@news.example.com');
    expect(await reasonFor('a@news.example.com')).toBe('sent');
    expect(await reasonFor('a@deep.news.example.com')).toBe('sent');
    expect(await reasonFor('x@news.example.com')).toBe('blocked');
    expect(await reasonFor('eve@mail.example.com')).toBe('sent');
    expect(await reasonFor('a@mail.example.com')).toBe('blocked');
    // A +tag is the address too.
    expect(await reasonFor('x+promo@news.example.com')).toBe('blocked');
  });

  it('blocks where an address has both a block and an allow entry at the same place', async () => {
    await put({ direction: 'send', type: 'allow', account: agent }, 'dave@example.com');
    await put({ direction: 'send', type: 'block', account: agent }, 'dave@example.com');
    expect(await reasonFor('dave@example.com')).toBe('blocked');
  });

  it('counts an address no entry matches as not_allowed when a user allow list is non-empty', async () => {
    await put({ direction: 'send', type: 'allow' }, 'partner.com');
    expect(await reasonFor('a@partner.com')).toBe('sent');
    expect(await reasonFor('a@stranger.com')).toBe('not_allowed');
    expect(await reasonFor('a@stranger.com', 'other@mailroom.test')).toBe('not_allowed');
    // Receive lists say nothing about sending.
    await deps.store.reset.mail();
    await put({ direction: 'receive', type: 'allow' }, 'partner.com');
    expect(await reasonFor('a@stranger.com')).toBe('sent');
  });

  it('refuses the whole send, naming each refused recipient by its field, and saves nothing', async () => {
    await put({ direction: 'send', type: 'block' }, 'blocked.com');
    await suppressBounced(deps, inbox.user_id, ['Gone@Example.org']);
    await put({ direction: 'send', type: 'allow', account: agent }, 'gone@example.org');
    await put({ direction: 'send', type: 'allow', account: agent }, 'fine.com');
    const refused = await refusal(['ok@fine.com'], { cc: ['a@blocked.com'], bcc: ['gone@example.org'] });
    expect(refused).toEqual({
      code: 'recipient_blocked',
      details: [
        expect.objectContaining({ path: 'cc', address: 'a@blocked.com', reason: 'blocked' }),
        expect.objectContaining({ path: 'bcc', address: 'gone@example.org', reason: 'suppressed' }),
      ],
    });
    expect(await sentCount()).toBe(0);
    expect(await listSuppressions(deps, owner)).toEqual([
      { address: 'gone@example.org', reason: 'bounced', created_at: expect.any(String) },
    ]);
    await liftSuppression(deps, owner, 'gone@example.org');
    expect(await refusal(['ok@fine.com'], { bcc: ['gone@example.org'] })).toBeNull();
    expect(await sentCount()).toBe(1);
  });

  it('lets a draft hold any recipient and checks it at send', async () => {
    await put({ direction: 'send', type: 'block' }, 'bob@example.com');
    const draft = await createDraft(deps, ownerCaller(inbox.user_id), agent, {
      to: ['bob@example.com'],
      subject: 'later',
    });
    await expect(sendDraft(deps, ownerCaller(inbox.user_id), agent, draft.uid)).rejects.toMatchObject({
      code: 'recipient_blocked',
      details: [expect.objectContaining({ path: 'to', reason: 'blocked' })],
    });
    const drafts = await listEmails(
      deps,
      ownerCaller(inbox.user_id),
      parseWithContract(ListEmailsQuery, { account: agent, folder: 'Drafts' }),
    );
    expect(drafts.emails.map((e) => e.uid)).toEqual([draft.uid]);
    expect(await sentCount()).toBe(0);
  });

  it('keeps lists per place: user-wide, or one inbox; entries stored lower-case, one per place', async () => {
    const user: ListRef = { direction: 'receive', type: 'block' };
    const mine: ListRef = { ...user, account: agent };
    expect(await addEntry(deps, owner, user, { entry: 'Spam.Example', reason: 'noise' })).toEqual({
      entry: 'spam.example',
      direction: 'receive',
      type: 'block',
      account: null,
      reason: 'noise',
      created_at: expect.any(String),
    });
    await addEntry(deps, owner, mine, { entry: 'x@spam.example' });
    await addEntry(deps, owner, mine, { entry: 'x@spam.example', reason: 'again' });
    expect((await listEntries(deps, owner, user)).map((e) => e.entry)).toEqual(['spam.example']);
    expect(await listEntries(deps, owner, mine)).toEqual([
      expect.objectContaining({ entry: 'x@spam.example', account: agent, reason: 'again' }),
    ]);
    expect(await listEntries(deps, owner, { ...user, direction: 'send' })).toEqual([]);
    await removeEntry(deps, owner, mine, 'x@spam.example');
    await expect(removeEntry(deps, owner, mine, 'x@spam.example')).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      listEntries(deps, owner, { ...user, account: 'nobody@mailroom.test' }),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('lets a key read lists with read, change them with manage, and change user-wide ones only when it reaches every inbox', async () => {
    const reader: Caller = { ...owner, keyId: 'k1', permissions: new Set(['read']) };
    const scoped: Caller = { ...owner, keyId: 'k2', inboxes: [agent] };
    const user: ListRef = { direction: 'send', type: 'block' };
    expect(await listEntries(deps, reader, user)).toEqual([]);
    await expect(addEntry(deps, reader, user, { entry: 'a.com' })).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('manage'),
    });
    await expect(addEntry(deps, scoped, user, { entry: 'a.com' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    await addEntry(deps, scoped, { ...user, account: agent }, { entry: 'a.com' });
    await expect(liftSuppression(deps, reader, 'a@b.com')).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('refuses a blocked envelope sender at RCPT TO for that inbox only', async () => {
    await put({ direction: 'receive', type: 'block', account: agent }, 'pest.com');
    await put({ direction: 'receive', type: 'allow', account: agent }, 'friend@pest.com');
    expect(await recipientFrom(deps, agent, 'a@pest.com')).toBe('sender-blocked');
    expect(await recipientFrom(deps, agent, 'friend@pest.com')).toMatchObject({ inbox: { id: inbox.id } });
    expect(await recipientFrom(deps, 'other@mailroom.test', 'a@pest.com')).toMatchObject({
      inbox: { id: other.id },
    });
    // A bounce (null sender) is never refused; an allow list alone refuses nobody at RCPT TO.
    expect(await recipientFrom(deps, agent, '')).toMatchObject({ inbox: { id: inbox.id } });
    await put({ direction: 'receive', type: 'allow' }, 'only.com');
    expect(await recipientFrom(deps, 'other@mailroom.test', 'a@else.com')).toMatchObject({
      inbox: { id: other.id },
    });
  });

  it('files mail whose header From is blocked or outside a receive allow list into Spam, per inbox', async () => {
    await put({ direction: 'receive', type: 'block', account: agent }, 'pest.com');
    await put({ direction: 'receive', type: 'allow', account: 'other@mailroom.test' }, 'friend.com');
    const mail = (from: string) =>
      Buffer.from(`From: ${from}\r\nTo: ${agent}, other@mailroom.test\r\nSubject: s\r\n\r\nbody\r\n`);
    const folderOf = async (account: string) => {
      for (const folder of ['INBOX', 'Spam']) {
        const { emails } = await listEmails(
          deps,
          ownerCaller(inbox.user_id),
          parseWithContract(ListEmailsQuery, { account, folder }),
        );
        if (emails.length > 0) return folder;
      }
      return 'nowhere';
    };
    await receiveMessage(deps, { raw: mail('Pest <a@pest.com>'), inboxes: [inbox, other] });
    expect([await folderOf(agent), await folderOf('other@mailroom.test')]).toEqual(['Spam', 'Spam']);
    await deps.store.reset.mail();
    await put({ direction: 'receive', type: 'allow', account: 'other@mailroom.test' }, 'friend.com');
    await receiveMessage(deps, { raw: mail('b@friend.com'), inboxes: [inbox, other] });
    expect([await folderOf(agent), await folderOf('other@mailroom.test')]).toEqual(['INBOX', 'INBOX']);
    // Local delivery of a send follows the same rule.
    await deps.store.reset.mail();
    await put({ direction: 'receive', type: 'block', account: 'other@mailroom.test' }, agent);
    expect(await refusal(['other@mailroom.test'])).toBeNull();
    expect(await folderOf('other@mailroom.test')).toBe('Spam');
  });
});
