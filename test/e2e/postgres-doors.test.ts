import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { mailroom } from '../helpers/cli.js';
import { signInWithLink } from '../helpers/dashboard.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { ADMIN_TOKEN, FAST_IMAP, remoteFolder } from '../helpers/imap-setup.js';
import { call, connect } from '../helpers/mcp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openStream } from '../helpers/sse-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Each door once on PostgreSQL. The doors' own rules are tested on SQLite only (the files whose
 * first line says so, see test/engines.ts): they work the same on either engine, and this proves
 * each of them reads and writes the PostgreSQL database.
 */
describe('every door on PostgreSQL', { timeout: 300_000 }, () => {
  let server: TestServer;
  let capture: CaptureServer;
  let dovecot: Dovecot;
  let hooks: WebhookReceiver;
  const list = async (query: string) =>
    (await server.api(`/emails?account=${encodeURIComponent(server.inbox)}&${query}`)).json.data.emails as {
      uid: number;
      subject: string;
    }[];

  beforeAll(async () => {
    [capture, dovecot, hooks] = await Promise.all([
      startCaptureServer(),
      startDovecot(),
      WebhookReceiver.start(),
    ]);
    server = await startServer({
      adminToken: ADMIN_TOKEN,
      imapOptions: FAST_IMAP,
      outbound: 'relay',
      relayUrl: capture.url,
    });
  });
  afterEach(() => expect(server.mailroom.db.engine).toBe('postgres'));
  afterAll(async () => {
    await server?.stop();
    await Promise.all([capture?.close(), dovecot?.stop(), hooks?.close()]);
  });

  it('SMTP in, HTTP out: lists, reads and searches the mail; SSE and a webhook tell of it', async () => {
    const hook = await server.api('/webhooks', { body: { url: hooks.url, events: ['email.received'] } });
    expect(hook.status).toBe(201);
    const stream = await openStream(server, `?account=${encodeURIComponent(server.inbox)}`);
    try {
      await server.sendMail({
        from: 'ada@example.com',
        to: server.inbox,
        subject: 'Analytical engine',
        text: 'It weaves algebraic patterns.',
      });
      const event = await stream.nextEvent();
      expect(event.json).toMatchObject({
        type: 'email.received',
        data: { email: { subject: 'Analytical engine' } },
      });
    } finally {
      stream.close();
    }
    const [listed] = await list('limit=10');
    expect(listed).toMatchObject({ subject: 'Analytical engine' });
    const read = await server.api(`/emails/${listed!.uid}?account=${encodeURIComponent(server.inbox)}`);
    expect(read.json.data.email.text).toContain('It weaves algebraic patterns.');
    expect((await list('q=algebraic')).map((e) => e.subject)).toEqual(['Analytical engine']);
    expect(await list('q=steam')).toEqual([]);
    await eventually(() => hooks.requests.length === 1);
    expect(hooks.requests[0]!.json).toMatchObject({ type: 'email.received' });
  });

  it('answers an MCP tool call from the database', async () => {
    const client = await connect(server, server.key);
    try {
      const { emails } = await call(client, 'list_emails', { account: server.inbox });
      expect(emails.map((e: { subject: string }) => e.subject)).toContain('Analytical engine');
    } finally {
      await client.close();
    }
  });

  it('shows the mail in the dashboard in Chromium, signed in', async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const { page } = await signInWithLink(browser, server);
      await page.goto(`${server.baseUrl}/mail?account=${encodeURIComponent(server.inbox)}&folder=INBOX`);
      await page.getByRole('link', { name: /Analytical engine/ }).click();
      await page.waitForURL(/\/mail\/message\?/);
      expect(await page.locator('.body-text').textContent()).toContain('It weaves algebraic patterns.');
    } finally {
      await browser?.close();
    }
  });

  it('sends through the relay', async () => {
    const sent = await server.api('/emails/send', {
      body: { from: server.inbox, to: ['grace@example.net'], subject: 'Out', text: 'to the relay' },
    });
    expect(sent.status).toBe(200);
    await eventually(() => capture.messages.some((m) => m.to.includes('grace@example.net')));
  });

  it('syncs an IMAP mailbox: a message on the remote appears here, a flag set here goes back', async () => {
    dovecot.addUser('owner', 'owner-S3cret!');
    const other = await dovecot.client('owner');
    try {
      await other.append('INBOX', rawMessage({ subject: 'On the remote' }), []);
      const address = 'owner@example.org';
      const connected = await server.api('/admin/v1/inboxes', {
        key: ADMIN_TOKEN,
        body: { address, user: 'default', imap: { url: dovecot.url('owner') }, smtp: { url: capture.url } },
      });
      expect(connected.status).toBe(201);
      const synced = await eventually(async () => {
        const res = await server.api(`/emails?account=${address}&folder=INBOX`);
        return res.json.data?.emails?.find((e: { subject: string }) => e.subject === 'On the remote');
      });
      const flagged = await server.api(`/emails/${synced.uid}?account=${address}`, {
        method: 'PATCH',
        body: { action: 'flag' },
      });
      expect(flagged.status).toBe(200);
      const remote = await remoteFolder(other, 'INBOX');
      expect(remote.find((m) => m.subject === 'On the remote')!.flags).toContain('\\Flagged');
    } finally {
      await other.logout().catch(() => other.close());
    }
  });

  it('a `mailroom` command on the PostgreSQL URL changes what the running server serves', async () => {
    expect(server.cliEnv.MAILROOM_DATABASE_URL).toMatch(/^postgres:/);
    const domain = server.inbox.split('@')[1]!;
    expect((await mailroom(['user', 'add', 'cli-user', '--json'], server.cliEnv)).code).toBe(0);
    const inbox = await mailroom(
      ['inbox', 'add', `cli@${domain}`, '--user', 'cli-user', '--json'],
      server.cliEnv,
    );
    expect(inbox.code).toBe(0);
    const created = await mailroom(['key', 'create', '--user', 'cli-user', '--json'], server.cliEnv);
    const { key } = JSON.parse(created.stdout).key as { key: string };
    const accounts = await server.api('/accounts', { key });
    expect(accounts.status).toBe(200);
    expect(accounts.json.data.accounts.map((a: { address: string }) => a.address)).toEqual([`cli@${domain}`]);
  });
});
