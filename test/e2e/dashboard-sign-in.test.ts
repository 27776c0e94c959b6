// Engines: SQLite only: the dashboard's sign-in over HTTP; dashboard-sign-in-throttle (its rows) runs on both, postgres-doors signs in on PostgreSQL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailroom } from '../helpers/cli.js';
import { postForm, sessionCookie } from '../helpers/dashboard-forms.js';
import { spawnServe } from '../helpers/serve-process.js';
import type { TestServer } from '../helpers/server.js';
import { onPostgres, startServer } from '../helpers/server.js';

describe('dashboard passwords from the command line', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server?.stop());

  it('user add --password-stdin and user passwd give a password that signs in; the old one stops working', async () => {
    const added = await mailroom(
      ['user', 'add', 'carol', '--password-stdin', '--admin', '--json'],
      server.cliEnv,
      'first secret\n',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout).user).toMatchObject({ name: 'carol', admin: true });
    expect(added.stdout).not.toContain('first secret');

    const first = await postForm(server.baseUrl, '/sign-in', { name: 'carol', password: 'first secret' });
    expect(first.status).toBe(303);
    const cookie = sessionCookie(first)!;
    expect(first.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    expect((await fetch(`${server.baseUrl}/domains`, { headers: { cookie } })).status).toBe(200);

    const changed = await mailroom(
      ['user', 'passwd', 'carol', '--password-stdin'],
      server.cliEnv,
      'second secret\n',
    );
    expect(changed.code, changed.stderr).toBe(0);
    // A new password ends the sessions opened with the old one.
    expect(
      (await fetch(`${server.baseUrl}/domains`, { headers: { cookie }, redirect: 'manual' })).status,
    ).toBe(303);
    expect(
      (await postForm(server.baseUrl, '/sign-in', { name: 'carol', password: 'first secret' })).status,
    ).toBe(400);
    expect(
      (await postForm(server.baseUrl, '/sign-in', { name: 'carol', password: 'second secret' })).status,
    ).toBe(303);
  });

  it('refuses a short password and asks for stdin when there is no terminal', async () => {
    const short = await mailroom(['user', 'add', 'dan', '--password-stdin'], server.cliEnv, 'short\n');
    expect(short.code).not.toBe(0);
    expect(short.stderr).toMatch(/at least 8 characters/);
    const noTerminal = await mailroom(['user', 'passwd', 'default'], server.cliEnv);
    expect(noTerminal.code).not.toBe(0);
    expect(noTerminal.stderr).toMatch(/--password-stdin/);
  });

  it('opens a session until its expiry, and not after', async () => {
    const store = server.mailroom.deps.store.dashboardSessions;
    const user = (await server.mailroom.deps.store.users.find('default'))!;
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const row = (token: string, expires: string) => ({
      token,
      user_id: user.id,
      csrf_token: 'csrf',
      created_at: at(-1000),
      last_seen_at: at(-1000),
      expires_at: expires,
    });
    await store.createSession(row('still-open', at(60_000)));
    await store.createSession(row('expired', at(-1)));
    const open = (token: string) =>
      fetch(`${server.baseUrl}/keys`, {
        headers: { cookie: `mailroom_session=${token}` },
        redirect: 'manual',
      });
    expect((await open('still-open')).status).toBe(200);
    expect((await open('expired')).status).toBe(303);
  });

  it('answers a script without a session 401 and a page request with the sign-in page', async () => {
    const live = await fetch(`${server.baseUrl}/mail/live?account=${server.inbox}`);
    expect(live.status).toBe(401);
    const page = await fetch(`${server.baseUrl}/mail`, { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/sign-in?next=%2Fmail');
    // The API is untouched by the dashboard: no cookie makes it answer.
    expect((await server.api('/accounts', { key: null })).status).toBe(401);
  });
});

describe('mailroom serve on a fresh install', () => {
  // The serve process keeps its data in its own directory (SQLite).
  it.skipIf(onPostgres)(
    'prints a one-time sign-in link with MAILROOM_PUBLIC_URL that opens a session once',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-dash-'));
      const serve = await spawnServe({ MAILROOM_DATA_DIR: dir, MAILROOM_PUBLIC_URL: 'http://localhost:1' });
      try {
        const link = /(http:\/\/localhost:1\/sign-in\/link\/[\w-]+)/.exec(serve.stderr())?.[1];
        expect(link, serve.stderr()).toBeDefined();
        expect(serve.stdout()).not.toContain(link!.split('/').pop());
        const token = link!.split('/').pop()!;
        // Another site's page cannot spend the link (nor sign anyone in with it).
        const evil = await postForm(
          serve.baseUrl,
          '/sign-in/link',
          { token },
          { headers: { origin: 'http://evil.example' } },
        );
        expect(evil.status).toBe(403);
        // The public URL is where people come from: a form posted from that origin is this site's.
        const fromPublic = await postForm(
          serve.baseUrl,
          '/sign-in/link',
          { token },
          { headers: { origin: 'http://localhost:1' } },
        );
        expect(fromPublic.status).toBe(303);
        expect(sessionCookie(fromPublic)).toBeDefined();
        const again = await postForm(
          serve.baseUrl,
          '/sign-in/link',
          { token },
          { headers: { origin: 'http://localhost:1' } },
        );
        expect(again.status).toBe(401);
      } finally {
        await serve.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
