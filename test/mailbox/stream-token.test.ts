import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Forbidden } from '../../src/mailbox/errors.js';
import {
  issueStreamToken,
  redeemStreamToken,
  signStreamToken,
  verifyStreamToken,
} from '../../src/mailbox/events/stream-token.js';
import { createKey, revokeKey } from '../../src/mailbox/operations/admin.js';
import { callerOfKey } from '../../src/mailbox/operations/key-auth.js';
import type { KeyCaller } from '../../src/mailbox/caller.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

// What a stream token holds and whom it stands for. POST /events/token and GET /events?token=
// as HTTP (the key never in a URL, the stream opened and ended, another node) are
// test/e2e/events-token.test.ts.
describe('stream tokens', () => {
  let box: InProcess;
  let caller: KeyCaller;
  let key: string;
  beforeAll(async () => {
    box = await inProcessInbox('tokens@mailroom.test', { secret: 'a'.repeat(64) });
    const made = await createKey(box.deps, 'owner');
    caller = callerOfKey(made.row);
    key = made.key;
  });
  afterAll(async () => box?.close());

  it('is valid for about a minute, stands for its key, and holds no key', async () => {
    const before = Date.now();
    const token = await issueStreamToken(box.deps, caller);
    expect(token.account).toBeNull();
    const ttl = Date.parse(token.expiresAt) - before;
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(61_000);
    expect(token.token).not.toContain(key);
    const redeemed = await redeemStreamToken(box.deps, token.token);
    expect(redeemed).toMatchObject({ account: null, caller: { keyId: caller.keyId, userId: caller.userId } });
    // An API key is no token.
    expect(await redeemStreamToken(box.deps, key)).toBeNull();
  });

  it("names one of the caller's inboxes when asked, and refuses another user's", async () => {
    const token = await issueStreamToken(box.deps, caller, box.inbox.address.toUpperCase());
    expect(token.account).toBe(box.inbox.address);
    expect((await redeemStreamToken(box.deps, token.token))?.account).toBe(box.inbox.address);
    const stranger = await box.addInbox('stranger@mailroom.test', 'stranger');
    expect(await refusal(issueStreamToken(box.deps, caller, stranger.inbox.address))).toBeInstanceOf(
      Forbidden,
    );
  });

  it('is refused when it expired, was altered, or was signed with another secret', async () => {
    const { deps } = box;
    const claims = verifyStreamToken(deps, (await issueStreamToken(deps, caller)).token)!;
    const expired = signStreamToken(deps, { ...claims, expires: Math.floor(Date.now() / 1000) - 1 });
    expect(await redeemStreamToken(deps, expired)).toBeNull();

    const [prefix, body, mac] = signStreamToken(deps, claims).split('.');
    expect(body).toBeTruthy();
    const otherUser = Buffer.from(JSON.stringify({ ...claims, userId: claims.userId + 1 })).toString(
      'base64url',
    );
    expect(await redeemStreamToken(deps, `${prefix}.${otherUser}.${mac}`)).toBeNull();

    const foreignDeps = { ...deps, config: { ...deps.config, secret: 'another-secret-0123456789abcdef' } };
    expect(await redeemStreamToken(deps, signStreamToken(foreignDeps, claims))).toBeNull();
  });

  it('stands for nothing once its key is revoked', async () => {
    const made = await createKey(box.deps, 'owner');
    const { token } = await issueStreamToken(box.deps, callerOfKey(made.row));
    expect(await redeemStreamToken(box.deps, token)).not.toBeNull();
    await revokeKey(box.deps, made.row.id);
    expect(await redeemStreamToken(box.deps, token)).toBeNull();
  });
});
