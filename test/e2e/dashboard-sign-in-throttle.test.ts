import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SIGN_IN_ATTEMPT_LIMIT,
  SIGN_IN_WINDOW_MS,
  SignInThrottled,
  setUserPassword,
  signInWithPassword,
} from '../../src/mailbox/operations/sign-in.js';
import { sha256Hex } from '../../src/store/ids.js';
import { postForm } from '../helpers/dashboard-forms.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const RIGHT = 'correct horse battery';

// Each test signs in from its own loopback addresses and as its own users: a throttle holds for
// five minutes, longer than the file runs.
describe('the dashboard sign-in throttle (contract 12)', { timeout: 120_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    for (const name of ['alice', 'bob', 'carol', 'dave', 'erin']) {
      await server.addUser(name);
      await setUserPassword(server.mailroom.deps, name, RIGHT);
    }
  });
  afterAll(async () => server?.stop());

  const signIn = (name: string, password: string, from: string) =>
    postForm(server.baseUrl, '/sign-in', { name, password }, { localAddress: from });

  const sessionsOf = async (name: string) => {
    const user = (await server.mailroom.deps.store.users.find(name))!;
    const row = await server.mailroom.deps.store.db.rawFirst<{ n: number }>(
      'SELECT count(*) AS n FROM dashboard_sessions WHERE user_id = ?',
      user.id,
    );
    return Number(row!.n);
  };

  /** Checks a 429 says why and for how long; answers its text. */
  async function expectThrottled(answer: Response): Promise<void> {
    expect(answer.status).toBe(429);
    const wait = Number(answer.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(300);
    expect(await answer.text()).toMatch(/too many failed sign-ins/i);
  }

  it('checks at most 4 of 40 passwords sent at once from one address; the others, the right one too, are 429', async () => {
    const passwords = Array.from({ length: 39 }, (_, i) => `wrong password ${i}`);
    passwords.splice(20, 0, RIGHT);
    const answers = await Promise.all(passwords.map((password) => signIn('alice', password, '127.0.0.2')));
    const statuses = answers.map((a) => a.status);
    const wrong = statuses.filter((s) => s === 400).length;
    const signedIn = statuses.filter((s) => s === 303).length;
    expect(statuses.filter((s) => s !== 400 && s !== 303 && s !== 429)).toEqual([]);
    expect(wrong).toBeLessThanOrEqual(4);
    // The right password signs in only when it took one of the four places (it then gives its
    // place back, which one more wrong guess may take).
    expect(signedIn).toBeLessThanOrEqual(1);
    expect(wrong + signedIn).toBeGreaterThanOrEqual(4);
    expect(await sessionsOf('alice')).toBe(signedIn);
    for (const answer of answers) {
      if (answer.status === 429) await expectThrottled(answer);
      if (answer.status === 400) expect(await answer.text()).toMatch(/the name or the password is wrong/i);
    }
    // Four failures fill the window: the right password waits it out like any other.
    const after = await signIn('alice', RIGHT, '127.0.0.2');
    if (wrong === 4) await expectThrottled(after);
    else expect(after.status).toBe(303);
  });

  it('never asks to wait longer than the window, when attempts made together read their clocks apart', async () => {
    // The window was opened by attempts whose clocks read 2 s later than this one's (requests at
    // once take their times a few ms apart): Retry-After must still be at most 300 s.
    const later = Date.now() + 2_000;
    const at = (ms: number) => new Date(ms).toISOString();
    for (let i = 0; i < SIGN_IN_ATTEMPT_LIMIT; i++) {
      await server.mailroom.deps.store.dashboardSessions.reserveAttempt([`name:${sha256Hex('frank')}`], {
        now: at(later),
        windowStart: at(later - SIGN_IN_WINDOW_MS),
        limit: SIGN_IN_ATTEMPT_LIMIT,
      });
    }
    const refused = await signInWithPassword(server.mailroom.deps, {
      name: 'frank',
      password: 'any',
      client: '127.0.0.9',
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SignInThrottled);
    expect((refused as SignInThrottled).retryAfterSeconds).toBeLessThanOrEqual(SIGN_IN_WINDOW_MS / 1000);
  });

  it('checks at most 4 passwords for one name however many addresses send them, and charges no address for a refusal', async () => {
    const addresses = Array.from({ length: 8 }, (_, i) => `127.0.0.${10 + i}`);
    const answers = await Promise.all(
      addresses.flatMap((from, i) => [
        signIn('bob', `wrong ${i}a`, from),
        signIn('bob', `wrong ${i}b`, from),
      ]),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12);
    // The right password for bob is refused from an address that has not failed at all...
    await expectThrottled(await signIn('bob', RIGHT, '127.0.0.20'));
    expect(await sessionsOf('bob')).toBe(0);
    // ... and that refusal did not count against the address: carol signs in from it.
    expect((await signIn('carol', RIGHT, '127.0.0.20')).status).toBe(303);
  });

  it('does not count a right password as a failure, nor forget the failures before it', async () => {
    for (let i = 0; i < 3; i++) expect((await signIn('dave', `wrong ${i}`, '127.0.0.30')).status).toBe(400);
    expect((await signIn('dave', RIGHT, '127.0.0.30')).status).toBe(303);
    expect((await signIn('dave', 'wrong 3', '127.0.0.30')).status).toBe(400);
    // Four failures from the address and for the name: both are throttled now.
    await expectThrottled(await signIn('dave', RIGHT, '127.0.0.30'));
    await expectThrottled(await signIn('dave', RIGHT, '127.0.0.31'));
    await expectThrottled(await signIn('erin', RIGHT, '127.0.0.30'));
    expect((await signIn('erin', RIGHT, '127.0.0.31')).status).toBe(303);
  });
});
