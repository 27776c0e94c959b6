import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict } from '../../src/mailbox/errors.js';
import { sendEmail } from '../../src/mailbox/sending/send.js';
import { idempotencyGuard } from '../../src/mailbox/sending/idempotency.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

let box: InProcess;
beforeAll(async () => {
  box = await inProcessInbox('keyed@mailroom.test');
});
afterAll(async () => box?.close());

const input = (subject: string) => ({
  from: box.inbox.address,
  to: 'someone@example.com',
  subject,
  text: 'hi',
});
const sentSubjects = async () =>
  (
    await listEmails(box.deps, box.who, ListEmailsQuery.parse({ account: box.inbox.address, folder: 'Sent' }))
  ).emails.map((e) => e.subject);
/** A reservation of `key` for `subject`'s request made as another request (on any node) would. */
const reserveAs = async (key: string, subject: string, leaseMs: number) => {
  const guard = idempotencyGuard(box.who.userId, key, 'send', input(subject))!;
  const claimId = `other-${key}`;
  const reserved = await box.deps.store.idempotency.reserve({
    userId: guard.userId,
    key,
    requestHash: guard.hash,
    claimId,
    since: new Date(Date.now() - 86_400_000).toISOString(),
    now: new Date().toISOString(),
    leaseMs,
  });
  expect(reserved).toBe(true);
  return guard;
};

describe('an Idempotency-Key reserved by another request', () => {
  it('makes a twin wait for the first request and answer what it answered, sending nothing itself', async () => {
    const guard = await reserveAs('held-key', 'Held', 60_000);
    let settled = false;
    const twin = sendEmail(box.deps, box.who, input('Held'), { idempotencyKey: 'held-key' }).finally(
      () => (settled = true),
    );
    // The first request answers (its send committed with it); until then the twin has not.
    const answer = { messageId: '<first@mailroom.test>', uid: 77 };
    await sentSubjects();
    expect(settled).toBe(false);
    await box.deps.store.idempotency.save({
      user_id: guard.userId,
      key: guard.key,
      request_hash: guard.hash,
      status_code: 200,
      response: JSON.stringify(answer),
      created_at: new Date().toISOString(),
    });
    expect(await twin).toEqual(answer);
    expect(await sentSubjects()).not.toContain('Held');
  });

  it('is 409 at once for the same key with another request', async () => {
    await reserveAs('busy-key', 'Busy', 60_000);
    expect(
      await refusal(sendEmail(box.deps, box.who, input('Other'), { idempotencyKey: 'busy-key' })),
    ).toBeInstanceOf(Conflict);
  });

  it('is taken over once the request that reserved it stopped renewing it (its node died)', async () => {
    await reserveAs('dead-key', 'Orphan', 50);
    // This request waits out the dead one's lease, then sends; once.
    const sent = await sendEmail(box.deps, box.who, input('Orphan'), { idempotencyKey: 'dead-key' });
    expect(sent.subject).toBe('Orphan');
    const again = await sendEmail(box.deps, box.who, input('Orphan'), { idempotencyKey: 'dead-key' });
    expect(again).toEqual(sent);
    expect((await sentSubjects()).filter((s) => s === 'Orphan')).toHaveLength(1);
  });
});
