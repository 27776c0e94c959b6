import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmailWaitTimeout } from '../../src/client/waiting.js';
import { createMailroom } from '../../src/mailroom.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server.stop());

const mail = (subject: string, extra: { from?: string; text?: string; html?: string; date?: Date } = {}) =>
  server.sendMail({
    from: extra.from ?? 'Alice <alice@example.com>',
    to: server.inbox,
    subject,
    text: extra.text ?? `About ${subject}`,
    ...(extra.html ? { html: extra.html } : {}),
    ...(extra.date ? { date: extra.date } : {}),
  });

describe('mailroom.waitForEmail (in-process)', () => {
  it('resolves with the whole email once matching mail arrives over SMTP', async () => {
    const long = 'x'.repeat(800);
    const waiting = server.mailroom.waitForEmail({
      account: server.inbox,
      subject: 'Your code',
      timeoutMs: 20_000,
    });
    await mail('Something else');
    await mail('Your code is 4711', { text: `Code 4711 ${long}`, html: '<p>Code <b>4711</b></p>' });
    const email = await waiting;
    expect(email.subject).toBe('Your code is 4711');
    expect(email.text).toContain(long); // whole, not the list's 500 characters
    expect(email.html).toContain('<b>4711</b>');
    expect(email.folder).toBe('INBOX');
  });

  it('finds matching mail that came before the wait, unless since says from when', async () => {
    await mail('Early bird', { date: new Date(Date.now() - 3_600_000) });
    const found = await server.mailroom.waitForEmail({ account: server.inbox, subject: 'Early bird' });
    expect(found.subject).toBe('Early bird');

    const since = new Date();
    const waiting = server.mailroom.waitForEmail({
      account: server.inbox,
      subject: 'Early bird',
      since,
      timeoutMs: 20_000,
    });
    await mail('Early bird again');
    expect((await waiting).subject).toBe('Early bird again');
  });

  it('filters on sender and recipient', async () => {
    await mail('From bob', { from: 'bob@example.com' });
    const email = await server.mailroom.waitForEmail({
      account: server.inbox,
      from: 'bob@',
      to: server.inbox,
    });
    expect(email.from).toBe('bob@example.com');
  });

  it('rejects after timeoutMs saying what it waited for and what did arrive', async () => {
    const started = Date.now();
    const waiting = server.mailroom.waitForEmail({
      account: server.inbox,
      subject: 'Never sent',
      from: 'nobody@',
      timeoutMs: 1_500,
    });
    await mail('Arrived meanwhile', { from: 'carol@example.com' });
    const error = await waiting.then(
      () => null,
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(error).toBeInstanceOf(EmailWaitTimeout);
    const message = (error as Error).message;
    expect(message).toContain('subject "Never sent"');
    expect(message).toContain('from "nobody@"');
    expect(message).toContain(`${server.inbox} (INBOX) within 1500 ms`);
    expect(message).toMatch(/"Arrived meanwhile" from carol@example\.com \(during the wait\)/);
    expect(message).toMatch(/"From bob" from bob@example\.com \(before it, at /);
    expect((error as EmailWaitTimeout).latest[0]!.subject).toBe('Arrived meanwhile');
  });

  it('says the folder is empty, and refuses an inbox that does not exist', async () => {
    const error = await server.mailroom
      .waitForEmail({ account: server.inbox, folder: 'Spam', timeoutMs: 200 })
      .catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^no email came to .* \(Spam\) within 200 ms; Spam is empty$/);
    await expect(
      server.mailroom.waitForEmail({ account: 'nobody@mailroom.test', timeoutMs: 200 }),
    ).rejects.toThrow(/no inbox nobody@mailroom\.test/);
  });
});

describe('mailroom.inbox(address)', () => {
  it('sends, lists, reads and waits without HTTP, through the same verbs as the API', async () => {
    const bob = await server.addUser('bob-inbox', 'bob');
    const agent = server.mailroom.inbox(server.inbox);
    const sent = await agent.send({ to: bob.inbox, subject: 'Hello Bob', text: 'How are you?' });
    expect(sent.delivery).toEqual([{ recipient: bob.inbox, status: 'delivered' }]);

    const bobs = server.mailroom.inbox(bob.inbox);
    const received = await bobs.waitForEmail({ subject: 'Hello Bob' });
    expect(received.from).toBe(server.inbox);
    expect((await bobs.read(received.uid)).text).toContain('How are you?');
    expect((await bobs.list()).emails.map((e) => e.subject)).toEqual(['Hello Bob']);
    expect((await agent.list({ folder: 'Sent' })).emails[0]!.subject).toBe('Hello Bob');
    // The same answer as the API gives.
    const overHttp = await server.api(`/emails/${received.uid}?account=${bob.inbox}`, { key: bob.key });
    expect(overHttp.json.data.email).toEqual(await bobs.read(received.uid));

    expect(await bobs.empty()).toEqual({ folder: 'INBOX', count: 1, deleted: false, movedTo: 'Trash' });
    expect((await bobs.list()).emails).toEqual([]);
  });
});

describe('mailroom.reset()', () => {
  it('empties every inbox and what tests made, and keeps users, keys, domains and inboxes', async () => {
    const acc = `account=${encodeURIComponent(server.inbox)}`;
    const dave = await server.addUser('dave');
    await mail('Before reset');
    await server.api('/labels', { body: { name: 'Urgent' } });
    await server.api('/folders', { body: { account: server.inbox, name: 'Archive' } });
    await server.api('/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['email.received'] } });
    const first = (await server.api(`/emails?${acc}`)).json.data.emails[0];
    await server.api(`/emails/${first.uid}?${acc}`, { method: 'DELETE' });
    expect(first.uid).toBeGreaterThan(1);

    await server.mailroom.reset();

    for (const folder of ['INBOX', 'Trash', 'Sent']) {
      expect((await server.api(`/emails?${acc}&folder=${folder}`)).json.data.emails, folder).toEqual([]);
    }
    expect((await server.api(`/threads?${acc}`)).json.data.threads).toEqual([]);
    expect((await server.api('/labels')).json.data.labels).toEqual([]);
    expect((await server.api('/webhooks')).json.data.webhooks).toEqual([]);
    const folders = (await server.api(`/folders?${acc}`)).json.data.folders.map(
      (f: { name: string }) => f.name,
    );
    expect(folders).not.toContain('Archive');
    expect(folders).toEqual(expect.arrayContaining(['INBOX', 'Sent', 'Drafts', 'Trash', 'Spam']));
    // Keys, users and their inboxes are still there, and uids count from 1 again.
    expect((await server.api('/accounts', { key: dave.key })).json.data.accounts[0].address).toBe(dave.inbox);
    await mail('After reset');
    const after = await server.mailroom.waitForEmail({ account: server.inbox, subject: 'After reset' });
    expect(after.uid).toBe(1);
  });

  it('with all: true, goes back to the first start, keeping the bootstrap key', async () => {
    const erin = await server.addUser('erin');
    const before = server.mailroom.bootstrap!;
    await server.mailroom.reset({ all: true });
    expect((await server.api('/accounts', { key: erin.key })).status).toBe(401);
    expect(server.mailroom.bootstrap).toMatchObject({ apiKey: before.apiKey, inbox: before.inbox });
    const accounts = await server.api('/accounts');
    expect(accounts.json.data.accounts.map((a: { address: string }) => a.address)).toEqual([server.inbox]);
    expect((await server.api(`/emails?account=${server.inbox}`)).json.data.emails).toEqual([]);
    await mail('After a full reset');
    expect((await server.mailroom.waitForEmail({ account: server.inbox })).subject).toBe(
      'After a full reset',
    );
  });
});

describe('memory: true', () => {
  it('runs a whole server that writes no file, not even its data directory or secret', async () => {
    const dataDir = path.join(os.tmpdir(), `mailroom-memory-${process.pid}-${Date.now()}`);
    const mailroom = createMailroom({
      env: {},
      memory: true,
      dataDir,
      httpPort: 0,
      smtpPort: 0,
      verifyAuth: false,
      logLevel: 'silent',
    });
    await mailroom.start();
    try {
      const smtp = nodemailer.createTransport({
        host: '127.0.0.1',
        port: mailroom.smtp.port,
        ignoreTLS: true,
      });
      await smtp.sendMail({
        from: 'a@example.com',
        to: mailroom.bootstrap!.inbox,
        subject: 'Kept in memory',
        text: 'hi',
      });
      smtp.close();
      const email = await mailroom.waitForEmail({ account: mailroom.bootstrap!.inbox });
      expect(email.subject).toBe('Kept in memory');
      const res = await fetch(`${mailroom.http.url}/api/v1/accounts`, {
        headers: { authorization: `Bearer ${mailroom.bootstrap!.apiKey}` },
      });
      expect(res.status).toBe(200);
    } finally {
      await mailroom.stop();
    }
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('cannot go with a PostgreSQL URL', () => {
    expect(() =>
      createMailroom({ env: { MAILROOM_MEMORY: 'true', MAILROOM_DATABASE_URL: 'postgres://x@y/z' } }),
    ).toThrow(/MAILROOM_MEMORY .* MAILROOM_DATABASE_URL/);
  });
});
