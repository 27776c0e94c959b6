// Engines: SQLite only: the dashboard's refusal of private IMAP hosts, a door rule.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../src/mailbox/connect/providers.js';
import { defaultResolve } from '../../src/net/reach.js';
import type { FormAnswer, FormSession } from '../helpers/dashboard.js';
import { signInOverHttp } from '../helpers/dashboard.js';
import type { ImapWorld } from '../helpers/imap-setup.js';
import { ADMIN_TOKEN, FAST_IMAP, startImapWorld } from '../helpers/imap-setup.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';

// Contract 9: a person connecting a mailbox from the dashboard may not make the server connect
// to loopback, private or link-local addresses (a port scanner of its own machine otherwise)
// unless MAILROOM_CONNECT_ALLOW_PRIVATE=true; operators (the admin API) are not limited.

/** A TCP port on 127.0.0.1 that counts who connects, and hangs up on them. */
async function listener() {
  const state = { connections: 0, port: 0, close: async () => {} };
  const server = net.createServer((socket) => {
    state.connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

/** What the Inboxes page says went wrong with the connect form (empty when nothing did). */
const refusalOf = (answer: FormAnswer, form = 'connect') =>
  (new RegExp(`id="${form}-error">([^<]*)<`).exec(answer.html)?.[1] ?? '').trim();

const SETTING = /MAILROOM_CONNECT_ALLOW_PRIVATE=true/;

describe('connecting a mailbox from the dashboard reaches public servers only', () => {
  let open: Awaited<ReturnType<typeof listener>>;
  let closedPort: number;
  let server: TestServer;
  let session: FormSession;
  /** Names the public internet would answer: one private, one re-pointed after its check. */
  const answers: Record<string, string[][]> = {
    'mail.inside.test': [['10.20.30.40']],
    'mail.rebind.test': [['93.184.215.14'], ['127.0.0.1']],
  };
  const asked: string[] = [];

  beforeAll(async () => {
    open = await listener();
    const closed = await listener();
    closedPort = closed.port;
    await closed.close();
    server = await startServer({
      imapOptions: FAST_IMAP,
      env: { MAILROOM_OAUTH_GMAIL_CLIENT_ID: 'the-team-client' },
      lookups: {
        resolve: async (host) => {
          const list = answers[host];
          if (!list) return defaultResolve(host);
          asked.push(host);
          return list.length > 1 ? list.shift()! : list[0]!;
        },
        providers: {
          ...PROVIDERS,
          gmail: {
            ...PROVIDERS.gmail,
            imap: { host: '127.0.0.1', port: open.port, security: 'none' },
            smtp: { host: '127.0.0.1', port: open.port, security: 'none' },
          },
        },
      },
    });
    session = await signInOverHttp(server);
  });
  afterAll(async () => {
    await server?.stop();
    await open?.close();
  });

  const connect = (host: string, port: number | string = open.port) =>
    session.post('/inboxes/connect', {
      address: 'me@example.org',
      imap: `imap://me@${host}:${port}`,
      imapPassword: 'secret',
      smtp: `smtp://me@${host}:${port}`,
    });

  it('answers an open and a closed port on 127.0.0.1 alike, naming the setting, and connects to neither', async () => {
    const toOpen = await connect('127.0.0.1', open.port);
    const toClosed = await connect('127.0.0.1', closedPort);
    expect(refusalOf(toOpen)).toMatch(SETTING);
    expect(refusalOf(toClosed)).toBe(refusalOf(toOpen));
    expect(toClosed.status).toBe(toOpen.status);
    expect(open.connections).toBe(0);
    expect(await server.mailroom.deps.store.inboxes.findByAddress('me@example.org')).toBeUndefined();
  });

  it('says the same for every loopback, private or link-local host, as written', async () => {
    const expected = refusalOf(await connect('127.0.0.1'));
    for (const host of [
      'localhost',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '127.1',
      '10.1.2.3',
      '192.168.0.10',
      '169.254.169.254',
      '0.0.0.0',
    ])
      expect(refusalOf(await connect(host)), host).toBe(expected);
    expect(open.connections).toBe(0);
  });

  it('refuses a name that resolves to a private address', async () => {
    const answer = await connect('mail.inside.test');
    expect(refusalOf(answer)).toBe(refusalOf(await connect('127.0.0.1')));
    expect(asked).toContain('mail.inside.test');
  });

  it('checks again when it connects: a name public when checked and loopback when connected is refused', async () => {
    const answer = await session.post('/inboxes/connect', {
      address: 'me@example.org',
      imap: `imap://me@mail.rebind.test:${open.port}`,
      imapPassword: 'secret',
      smtp: 'smtp://me@93.184.215.14:587',
    });
    expect(refusalOf(answer)).toBe(refusalOf(await connect('127.0.0.1')));
    // Asked when the form was checked, and again as the connection was made: the second answer won.
    expect(asked.filter((h) => h === 'mail.rebind.test')).toEqual(['mail.rebind.test', 'mail.rebind.test']);
    expect(open.connections).toBe(0);
  });

  it('refuses a provider whose servers are private before sending the person to consent', async () => {
    const answer = await session.post('/inboxes/oauth/start', { provider: 'gmail', address: '' });
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(refusalOf(answer, 'oauth')).toMatch(SETTING);
  });

  it('lets operators connect anywhere: the admin API tries 127.0.0.1', async () => {
    const admin = await startServer({ adminToken: ADMIN_TOKEN, imapOptions: FAST_IMAP });
    try {
      const before = open.connections;
      const res = await admin.api('/admin/v1/inboxes', {
        key: ADMIN_TOKEN,
        body: {
          address: 'ops@example.org',
          user: 'default',
          imap: { url: `imap://ops:pw@127.0.0.1:${open.port}` },
          smtp: { url: `smtp://127.0.0.1:${open.port}` },
        },
      });
      expect(res.json.error.message).not.toMatch(SETTING);
      expect(open.connections).toBeGreaterThan(before);
    } finally {
      await admin.stop();
    }
  });
});

describe('with MAILROOM_CONNECT_ALLOW_PRIVATE=true', () => {
  let world: ImapWorld;
  let session: FormSession;
  beforeAll(async () => {
    world = await startImapWorld('near', { env: { MAILROOM_CONNECT_ALLOW_PRIVATE: 'true' } });
    session = await signInOverHttp(world.server);
  });
  afterAll(async () => world?.stop());

  const accountOf = async () =>
    (await world.server.api('/accounts')).json.data.accounts.find(
      (a: { address: string }) => a.address === world.address,
    );

  it('connects a mailbox on 127.0.0.1 from the dashboard; turned off, its sync stops at the next connection', async () => {
    const answer = await session.post('/inboxes/connect', {
      address: world.address,
      imap: world.dovecot.url(world.user).replace(/:[^:@/]*@/, '@'),
      imapPassword: world.password,
      smtp: world.capture.url,
    });
    expect(answer.location, refusalOf(answer)).toBe('/inboxes?done=inbox-connected');
    await eventually(async () => (await accountOf())?.sync?.state === 'synced', 30_000);

    await world.server.restart(undefined, { connectAllowPrivate: false });
    const account = await eventually(async () => {
      const found = await accountOf();
      return found?.sync?.state === 'error' && found;
    }, 30_000);
    expect(account.sync.error).toMatch(SETTING);
  });
});
