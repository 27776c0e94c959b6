// Engines: SQLite only: IMAP sync against Courier, a protocol rule; postgres-doors syncs from Dovecot on PostgreSQL.
import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { Courier } from '../helpers/courier.js';
import { startCourier } from '../helpers/courier.js';
import { rawMessage } from '../helpers/dovecot.js';
import { ADMIN_TOKEN, FAST_IMAP } from '../helpers/imap-setup.js';
import { latin1Message } from '../helpers/latin1-message.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';

// Issue 17's findings against the server that showed them: Debian's Courier-IMAP 5.0 (its real
// imapd; test/helpers/courier.ts). Its folders live under "INBOX." with "." between names, it
// has no SPECIAL-USE, and its IDLE does not push without gamin's server (Debian's default).
describe('a mailbox on Courier-IMAP', { timeout: 90_000 }, () => {
  let courier: Courier;
  let capture: CaptureServer;
  let server: TestServer;
  let other: ImapFlow;
  const user = 'owner@example.net';
  const acc = `account=${encodeURIComponent(user)}`;

  const folderNames = async () =>
    ((await server.api(`/folders?${acc}`)).json.data.folders as { name: string }[]).map((f) => f.name);
  const subjects = async (folder: string) => {
    const res = await server.api(`/emails?${acc}&folder=${encodeURIComponent(folder)}&limit=100`);
    return res.status === 200 ? (res.json.data.emails as { subject: string }[]).map((e) => e.subject) : null;
  };
  beforeAll(async () => {
    courier = await startCourier();
    courier.addUser(user, 'courier-pw');
    capture = await startCaptureServer();
    server = await startServer({
      adminToken: ADMIN_TOKEN,
      // The full comparison only every ten minutes: new INBOX mail can only come through the check.
      imapOptions: { ...FAST_IMAP, pollMs: 600_000 },
      env: { MAILROOM_IMAP_CHECK_SECONDS: '1' },
    });
    other = await courier.client(user);
    expect(other.capabilities.has('SPECIAL-USE')).toBe(false);
    const hello = rawMessage({ subject: 'Hello', messageId: '<hello@example.com>', to: user });
    await other.append('INBOX', hello, ['\\Flagged']);
    await other.append('INBOX', latin1Message(user, 'text/plain; charset=iso-8859-1'), []);
    // Gmail's layout copied by a server that flags none of it.
    for (const view of ['INBOX.[Gmail].All Mail', 'INBOX.[Gmail].Starred', 'INBOX.[Gmail].Important']) {
      await other.mailboxCreate(view);
      await other.append(view, hello, ['\\Flagged']);
    }
    await other.mailboxCreate('INBOX.Projects');
    await other.append(
      'INBOX.Projects',
      rawMessage({ subject: 'Plan', messageId: '<plan@example.com>' }),
      [],
    );
    await other.mailboxCreate('INBOX.Reports');
    await other.append('INBOX.Reports', rawMessage({ subject: 'Q1 report' }), []);
    const res = await server.api('/admin/v1/inboxes', {
      key: ADMIN_TOKEN,
      body: { address: user, user: 'default', imap: { url: courier.url(user) }, smtp: { url: capture.url } },
    });
    expect(res.status, res.text).toBe(201);
    await eventually(async () => {
      const accounts = (await server.api('/accounts')).json.data.accounts;
      return accounts.find((a: { address: string }) => a.address === user)?.sync?.state === 'synced';
    }, 30_000);
  });
  afterAll(async () => {
    await other?.logout();
    await server?.stop();
    await capture?.close();
    await courier?.stop();
  });

  it('(8) reads raw 8-bit Latin-1 headers in their declared charset', async () => {
    const res = await server.api(`/emails?${acc}&folder=INBOX&q=${encodeURIComponent('crème')}`);
    expect(res.json.data.emails.map((e: { subject: string }) => e.subject)).toEqual([
      'Café crème à la française',
    ]);
    expect(res.json.data.emails[0]).toMatchObject({ fromName: 'René Müller' });
  });

  it('(4) skips Gmail-style All Mail, Starred and Important under INBOX.: the thread counts once', async () => {
    const names = await folderNames();
    expect(names).toEqual(expect.arrayContaining(['INBOX.Projects', 'INBOX.Reports']));
    expect(names.filter((n) => n.includes('[Gmail]'))).toEqual([]);
    const threads = (await server.api(`/threads?${acc}`)).json.data.threads as {
      subject: string;
      messageCount: number;
    }[];
    expect(threads.find((t) => t.subject === 'Hello')).toMatchObject({ messageCount: 1 });
  });

  it('(6) shows new mail within seconds though its IDLE does not push', async () => {
    await other.append('INBOX', rawMessage({ subject: 'Arrived on Courier', to: user }), []);
    // Found by the 1 s check (eventually's bound is for a loaded machine, not the product's promise).
    await eventually(async () => (await subjects('INBOX'))?.includes('Arrived on Courier'));
  });

  it('(2) drops a folder deleted by another client and shows a renamed one once', async () => {
    await other.mailboxRename('INBOX.Projects', 'INBOX.Work');
    await other.mailboxDelete('INBOX.Reports');
    // Folder changes come with the full comparison: ask for one by reconnecting (a restart).
    await server.restart();
    const names = await eventually(async () => {
      const list = await folderNames();
      return list.includes('INBOX.Work') &&
        !list.includes('INBOX.Projects') &&
        !list.includes('INBOX.Reports')
        ? list
        : null;
    }, 30_000);
    expect(names).toContain('INBOX.Work');
    // The renamed folder's mail comes back under its new name, once.
    const threads = await eventually(async () => {
      const list = (await server.api(`/threads?${acc}`)).json.data.threads as {
        subject: string;
        messageCount: number;
      }[];
      return list.some((t) => t.subject === 'Plan') ? list : null;
    }, 30_000);
    expect(threads.filter((t) => t.subject === 'Plan')).toEqual([
      expect.objectContaining({ messageCount: 1 }),
    ]);
    expect(threads.map((t) => t.subject)).not.toContain('Q1 report');
  });
});
