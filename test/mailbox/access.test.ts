import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { requireInbox } from '../../src/mailbox/access.js';
import { Forbidden } from '../../src/mailbox/errors.js';
import { listAccounts } from '../../src/mailbox/reading/accounts.js';
import { listEmails, readEmail } from '../../src/mailbox/reading/read.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess, Who } from '../helpers/in-process.js';

// Which inbox an account names, and for whom. That every route answers 403 and changes nothing
// is test/e2e/access.test.ts (HTTP, SQLite).
describe("one user's caller against another user's inbox", () => {
  let box: InProcess;
  let account: string;
  let mallory: { address: string; who: Who };
  let uid: number;
  beforeAll(async () => {
    box = await inProcessInbox('agent@mailroom.test');
    account = box.inbox.address;
    const other = await box.addInbox('mallory@mailroom.test', 'mallory');
    mallory = { address: other.inbox.address, who: other.who };
    const [filed] = await box.deliver({
      from: 'alice@example.com',
      to: account,
      subject: 'Private',
      text: 'x',
    });
    uid = filed!.uid;
  });
  afterAll(async () => box?.close());

  it('refuses it, with the same words as for an inbox that does not exist but for the account named', async () => {
    const theirs = await refusal(requireInbox(box.deps, mallory.who, account));
    expect(theirs).toBeInstanceOf(Forbidden);
    const ghost = await refusal(requireInbox(box.deps, mallory.who, 'ghost@mailroom.test'));
    expect(ghost).toBeInstanceOf(Forbidden);
    expect((ghost as Forbidden).message).toBe(
      (theirs as Forbidden).message.replace(account, 'ghost@mailroom.test'),
    );
    expect(await refusal(readEmail(box.deps, mallory.who, account, uid))).toBeInstanceOf(Forbidden);
  });

  it('matches the account case-insensitively for the owner, never for someone else', async () => {
    expect((await requireInbox(box.deps, box.who, account.toUpperCase())).id).toBe(box.inbox.id);
    const upper = ListEmailsQuery.parse({ account: account.toUpperCase() });
    expect((await listEmails(box.deps, box.who, upper)).emails.map((e) => e.subject)).toEqual(['Private']);
    expect(await refusal(listEmails(box.deps, mallory.who, upper))).toBeInstanceOf(Forbidden);
  });

  it("lists only the caller's own accounts", async () => {
    expect(await listAccounts(box.deps, box.who)).toEqual([
      { address: account, kind: 'local', displayName: expect.anything(), created_at: expect.any(String) },
    ]);
    expect((await listAccounts(box.deps, mallory.who)).map((a) => a.address)).toEqual([mallory.address]);
  });
});
