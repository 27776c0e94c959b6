import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/mailbox/caller.js';
import { ownerCaller } from '../../src/mailbox/caller.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { MailroomError } from '../../src/mailbox/errors.js';
import { createWebhook, getWebhook, listWebhooks } from '../../src/mailbox/events/webhooks.js';
import { addLocalInbox, addUser, createKey, listKeys } from '../../src/mailbox/operations/admin.js';
import { authenticateKey } from '../../src/mailbox/operations/key-auth.js';
import { listAccounts } from '../../src/mailbox/reading/accounts.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import { sendEmail } from '../../src/mailbox/sending/send.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { inProcessInbox } from '../helpers/in-process.js';

/** The code and words a verb refused with. */
async function refusal(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MailroomError);
  return { code: (error as MailroomError).code, message: (error as MailroomError).message };
}

describe("a key's reach, as the verbs hold it", () => {
  let deps: MailboxDeps;
  let inbox: InboxRow;
  let second: InboxRow;
  let close: () => Promise<void>;
  let narrow: Caller;

  beforeAll(async () => {
    ({ deps, inbox, close } = await inProcessInbox('one@mailroom.test'));
    second = await addLocalInbox(deps, 'two@mailroom.test', 'owner');
    const { key } = await createKey(deps, 'owner', { inboxes: ['ONE@mailroom.test'], permissions: ['read'] });
    narrow = (await authenticateKey(deps, key))!;
  });
  afterAll(() => close?.());

  it('stores the reach of a key and gives it back when the key is presented', async () => {
    expect(narrow.inboxes).toEqual(['one@mailroom.test']);
    expect([...narrow.permissions]).toEqual(['read']);
    const { key } = await createKey(deps, 'owner');
    const plain = (await authenticateKey(deps, key))!;
    expect(plain.inboxes).toBeNull();
    expect([...plain.permissions]).toEqual(['read', 'organise', 'send', 'manage']);
    const listed = (await listKeys(deps, inbox.user_id)).map((k) => [k.inboxes, k.permissions]);
    expect(listed).toContainEqual([['one@mailroom.test'], ['read']]);
  });

  it('refuses a key reaching an inbox of another user, or none', async () => {
    const stranger = await addUser(deps, 'stranger');
    await addLocalInbox(deps, 'three@mailroom.test', stranger.id);
    expect((await refusal(createKey(deps, 'owner', { inboxes: ['three@mailroom.test'] }))).code).toBe(
      'validation_error',
    );
    expect((await refusal(createKey(deps, 'owner', { inboxes: [] }))).code).toBe('validation_error');
    expect((await refusal(createKey(deps, 'owner', { permissions: [] }))).code).toBe('validation_error');
  });

  it('shows a limited key only its inboxes, and refuses the others as it refuses a stranger’s', async () => {
    expect((await listAccounts(deps, narrow)).map((a) => a.address)).toEqual([inbox.address]);
    expect((await listAccounts(deps, ownerCaller(inbox.user_id))).map((a) => a.address).sort()).toEqual([
      inbox.address,
      second.address,
    ]);
    const refused = await refusal(listEmails(deps, narrow, { account: second.address, limit: 5 }));
    expect(refused.code).toBe('forbidden');
    expect(refused.message).toBe(
      `account ${second.address} is not one of your inboxes; your inbox is ${inbox.address}`,
    );
    await expect(listEmails(deps, narrow, { account: inbox.address, limit: 5 })).resolves.toBeDefined();
  });

  it('keeps webhooks outside a limited key’s reach out of its sight, and narrows one it makes for all', async () => {
    const owner = ownerCaller(inbox.user_id);
    const hook = { url: 'https://93.184.216.34/a', events: ['email.received' as const] };
    const forAll = await createWebhook(deps, owner, hook);
    const forSecond = await createWebhook(deps, owner, { ...hook, accounts: [second.address] });
    const own = await createWebhook(deps, narrow, hook);
    expect(own.accounts).toEqual([inbox.address]);
    expect((await listWebhooks(deps, narrow, 50)).webhooks.map((w) => w.id)).toEqual([own.id]);
    for (const hidden of [forAll, forSecond])
      expect((await refusal(getWebhook(deps, narrow, hidden.id))).code).toBe('not_found');
    expect((await listWebhooks(deps, owner, 50)).webhooks).toHaveLength(3);
  });

  it('fills a limited key’s page of webhooks with those it reaches, however many it does not reach lie between', async () => {
    const owner = ownerCaller(inbox.user_id);
    const hook = { url: 'https://93.184.216.34/b', events: ['email.received' as const] };
    const visible = [];
    for (let i = 0; i < 3; i++) {
      visible.unshift((await createWebhook(deps, narrow, hook)).id);
      for (let j = 0; j < 4; j++) await createWebhook(deps, owner, { ...hook, accounts: [second.address] });
    }
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await listWebhooks(deps, narrow, 2, cursor);
      pages.push(page.webhooks.map((w) => w.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(pages.slice(0, -1).every((ids) => ids.length === 2)).toBe(true);
    expect(pages.flat().slice(0, 3)).toEqual(visible);
  });

  it('refuses a send outside the key’s reach even when another key of the user used the same Idempotency-Key', async () => {
    const { key } = await createKey(deps, 'owner', { inboxes: ['one@mailroom.test'], permissions: ['send'] });
    const sender = (await authenticateKey(deps, key))!;
    const input = { from: second.address, to: ['peer@example.com'], subject: 'once', text: 'hello' };
    const first = await sendEmail(deps, ownerCaller(second.user_id), input, { idempotencyKey: 'k-reach' });
    expect(first.uid).toBeGreaterThan(0);
    const again = await refusal(sendEmail(deps, sender, input, { idempotencyKey: 'k-reach' }));
    expect(again.code).toBe('forbidden');
    expect(again.message).toContain('two@mailroom.test');
  });
});
