// Engines: SQLite only: where the dashboard's sign-in leads is a rule of the door (a Location), the same on either engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUserPassword } from '../../src/mailbox/operations/sign-in.js';
import { postForm, sessionCookie } from '../helpers/dashboard-forms.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

/**
 * `next` values that point off this origin once a browser reads them as a Location: the URL
 * parser drops tabs and newlines, reads `\` as `/`, and resolves dot segments.
 */
const HOSTILE_NEXT = [
  '/\t/evil.example/x',
  '/\n/evil.example/x',
  '/\r/evil.example/x',
  '/\r\n/evil.example/x',
  '\t//evil.example/x',
  '/\\evil.example/x',
  '\\\\evil.example/x',
  '/\\\t\\evil.example/x',
  '//evil.example/x',
  '/.//evil.example/x',
  '/mail/../..//evil.example/x',
  'https://evil.example/x',
  'http://127.0.0.1@evil.example/x',
  'javascript:alert(1)',
  'http://[',
];

describe('where signing in leads (contract 12: `next` only to this origin)', { timeout: 120_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    await setUserPassword(server.mailroom.deps, 'default', PASSWORD);
  });
  afterAll(async () => server?.stop());

  const origin = () => new URL(server.baseUrl).origin;
  /** Where a browser goes with this answer's Location. */
  const destination = (answer: Response) => new URL(answer.headers.get('location')!, server.baseUrl);
  const signIn = (next: string) =>
    postForm(server.baseUrl, '/sign-in', { name: 'default', password: PASSWORD, next });

  it.each(HOSTILE_NEXT)(
    'signs in to this origin with next=%j, never a 500 nor another host',
    async (next) => {
      const answer = await signIn(next);
      expect(answer.status).toBe(303);
      expect(destination(answer).origin).toBe(origin());
      expect(answer.headers.get('location')).toBe('/');
      // Signed in already, the sign-in page sends the browser on at once: to this origin as well.
      const again = await fetch(`${server.baseUrl}/sign-in?next=${encodeURIComponent(next)}`, {
        headers: { cookie: sessionCookie(answer)! },
        redirect: 'manual',
      });
      expect(again.status).toBe(303);
      expect(destination(again).origin).toBe(origin());
      // Signed out, the form carries only a path of this origin forward.
      const form = await (await fetch(`${server.baseUrl}/sign-in?next=${encodeURIComponent(next)}`)).text();
      expect(/name="next" value="([^"]*)"/.exec(form)?.[1]).toBe('/');
    },
  );

  it('follows a next on this origin, with its query', async () => {
    const answer = await signIn('/mail?folder=Sent');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/mail?folder=Sent');
    const absolute = await signIn(`${server.baseUrl}/keys`);
    expect(absolute.headers.get('location')).toBe('/keys');
    const form = await (await fetch(`${server.baseUrl}/sign-in?next=%2Fmail%3Ffolder%3DSent`)).text();
    expect(/name="next" value="([^"]*)"/.exec(form)?.[1]).toBe('/mail?folder=Sent');
  });

  it('goes to the mail when there is no next', async () => {
    const answer = await postForm(server.baseUrl, '/sign-in', { name: 'default', password: PASSWORD });
    expect(answer.headers.get('location')).toBe('/mail');
  });
});
