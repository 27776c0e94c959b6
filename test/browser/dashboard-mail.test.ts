// Engines: SQLite only: the dashboard in Chromium; postgres-doors signs in and reads a mail there on PostgreSQL.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { checkPage, signInWithLink } from '../helpers/dashboard.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';

describe('mail in the dashboard', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  // A local image server: how many times was it asked for the tracking pixel?
  let imageRequests = 0;
  const images = http.createServer((_req, res) => {
    imageRequests += 1;
    res.setHeader('Content-Type', 'image/gif');
    res.end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
  });

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    ({ context, page } = await signInWithLink(browser, server));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    images.close();
  });

  const listUrl = (folder = 'INBOX') =>
    `${server.baseUrl}/mail?account=${encodeURIComponent(server.inbox)}&folder=${folder}`;

  it('shows a mail that arrived over SMTP, with its headers, checks and body', async () => {
    await server.sendMail({
      from: 'Ada Lovelace <ada@example.com>',
      to: server.inbox,
      subject: 'Notes on the analytical engine, a subject long enough to need cutting in the list',
      text: 'The engine weaves algebraic patterns.\nSecond line.',
    });
    await page.goto(listUrl());
    await page.getByRole('link', { name: /Notes on the analytical engine/ }).click();
    await page.waitForURL(/\/mail\/message\?/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toMatch(
      /^Notes on the analytical engine/,
    );
    expect(await page.locator('.headers').textContent()).toContain('Ada Lovelace <ada@example.com>');
    expect(await page.locator('.body-text').textContent()).toContain('The engine weaves algebraic patterns.');
    await checkPage(page, 'reader');
    // The script marked it read on opening.
    await eventually(async () => {
      const list = await server.api(`/emails?account=${server.inbox}&unread=true`);
      return list.json.data.emails.length === 0;
    });
  });

  it("shows dates in the reader's own time zone, the UTC time in the tooltip", async () => {
    await server.sendMail({
      from: 'clock@example.com',
      to: server.inbox,
      subject: 'Written just before midnight UTC',
      text: 'Which day is it for you?',
      date: new Date('2026-03-01T23:45:00Z'),
    });
    // The same session in a browser set to India's time, UTC+5:30 all year.
    const inIndia = await browser.newContext({ timezoneId: 'Asia/Kolkata' });
    await inIndia.addCookies(await context.cookies());
    const local = await inIndia.newPage();
    try {
      await local.goto(listUrl());
      const row = local.locator('li', { hasText: 'Written just before midnight UTC' });
      expect(await row.locator('time').textContent()).toBe('2026-03-02 05:15');
      await row.getByRole('link').click();
      await local.waitForURL(/\/mail\/message\?/);
      const date = local.locator('.headers time');
      expect(await date.textContent()).toMatch(/^2026-03-02 05:15 \S+/);
      expect(await date.getAttribute('title')).toBe('2026-03-01 23:45 UTC');
    } finally {
      await inIndia.close();
    }
  });

  it('adds new mail to the open list without a reload', async () => {
    await page.goto(listUrl());
    await page.waitForSelector('ul[data-connected]');
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    await server.sendMail({
      from: 'bob@example.com',
      to: server.inbox,
      subject: 'Arrived while you looked',
      text: 'hi',
    });
    await page.getByRole('link', { name: /Arrived while you looked/ }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(await page.locator('#messages li').first().textContent()).toContain('Arrived while you looked');
    await checkPage(page, 'mail-list');
  });

  it('shows HTML mail that runs nothing and loads remote images only when asked', async () => {
    const pixel = `http://127.0.0.1:${(images.address() as AddressInfo).port}/pixel.gif`;
    await server.sendMail({
      from: 'tracker@example.com',
      to: server.inbox,
      subject: 'Hostile HTML',
      text: 'fallback',
      html: `<p id="hello">Hello <b>there</b></p>
        <script>parent.postMessage('script ran', '*'); alert('script')</script>
        <img src="x" onerror="parent.postMessage('onerror ran', '*')" alt="broken">
        <a id="js" href="javascript:parent.postMessage('link ran', '*')">click me</a>
        <img src="${pixel}" alt="pixel">`,
    });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(listUrl());
    await page.getByRole('link', { name: /Hostile HTML/ }).click();
    await page.waitForURL(/\/mail\/message\?/);
    // Anything the mail's script, handler or link managed to run would post a message here.
    await page.evaluate(() => {
      const g = globalThis as unknown as {
        ran: string[];
        addEventListener: (t: string, f: (e: { data: string }) => void) => void;
      };
      g.ran = [];
      g.addEventListener('message', (e) => g.ran.push(String(e.data)));
    });
    const frame = page.frameLocator('iframe.body-frame');
    await frame.getByText('Hello').waitFor();
    expect(await frame.locator('script').count()).toBe(0);
    expect(await frame.locator('[onerror]').count()).toBe(0);
    expect(await frame.locator('a[href^="javascript"]').count()).toBe(0);
    await frame.getByText('click me').click();
    await new Promise((r) => setTimeout(r, 500));
    expect(await page.evaluate(() => (globalThis as unknown as { ran: string[] }).ran)).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(imageRequests).toBe(0);

    await page.getByRole('link', { name: 'Show images' }).click();
    await page.waitForURL(/images=1/);
    await page.frameLocator('iframe.body-frame').getByText('Hello').waitFor();
    await eventually(() => imageRequests > 0);
    expect(await page.evaluate(() => (globalThis as unknown as { ran?: string[] }).ran ?? [])).toEqual([]);
  });

  it('composes a message and replies to one; both are in Sent', async () => {
    await page.goto(`${server.baseUrl}/compose?account=${encodeURIComponent(server.inbox)}`);
    await page.getByLabel('To').fill('carol@example.net');
    await page.getByLabel('Subject').fill('Written in the dashboard');
    await page.getByLabel('Message').fill('Hello Carol');
    await checkPage(page, 'compose');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/folder=Sent/);
    expect(await page.getByRole('status').textContent()).toBe('Sent.');

    await page.goto(listUrl());
    await page.getByRole('link', { name: /Notes on the analytical engine/ }).click();
    await page.getByRole('link', { name: 'Reply', exact: true }).click();
    await page.getByLabel('Message').fill('Thank you, Ada');
    await page
      .getByLabel('Attachments')
      .setInputFiles({ name: 'sketch.txt', mimeType: 'text/plain', buffer: Buffer.from('a sketch') });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/folder=Sent/);
    const sent = await page.locator('#messages').textContent();
    expect(sent).toContain('Written in the dashboard');
    expect(sent).toContain('Re: Notes on the analytical engine');
    const api = await server.api(`/emails?account=${server.inbox}&folder=Sent`);
    const reply = api.json.data.emails.find((e: { subject: string }) => e.subject.startsWith('Re:'));
    expect(reply).toMatchObject({ to: ['ada@example.com'], attachments: [{ filename: 'sketch.txt' }] });
    expect(reply.inReplyTo).toMatch(/@/);
  });

  it('attaches chosen files to a new message; they go out whole', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(70_000, 7)]);
    await page.goto(`${server.baseUrl}/compose?account=${encodeURIComponent(server.inbox)}`);
    await page.getByLabel('To').fill('erin@example.net');
    await page.getByLabel('Subject').fill('The report, attached');
    await page.getByLabel('Message').fill('Both files are attached.');
    await page.getByLabel('Attachments').setInputFiles([
      { name: 'report.pdf', mimeType: 'application/pdf', buffer: pdf },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('line one\nline two\n') },
    ]);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/folder=Sent/);
    const sent = (await server.api(`/emails?account=${server.inbox}&folder=Sent`)).json.data.emails.find(
      (e: { subject: string }) => e.subject === 'The report, attached',
    );
    expect(sent.attachments).toMatchObject([
      { filename: 'report.pdf', contentType: 'application/pdf' },
      { filename: 'notes.txt', contentType: 'text/plain' },
    ]);
    const bytes = await fetch(
      `${server.baseUrl}/api/v1/emails/${sent.uid}/attachments/${sent.attachments[0].id}?account=${server.inbox}&folder=Sent`,
      { headers: { authorization: `Bearer ${server.key}` } },
    );
    expect(Buffer.from(await bytes.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it('saves a draft, edits it, and sends it', async () => {
    await page.goto(`${server.baseUrl}/compose?account=${encodeURIComponent(server.inbox)}`);
    await page.getByLabel('To').fill('dave@example.net');
    await page.getByLabel('Subject').fill('Half written');
    await page.getByLabel('Message').fill('First thoughts');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/folder=Drafts/);
    await page.getByRole('link', { name: /Half written/ }).click();
    expect((await page.getByLabel('Message').inputValue()).trim()).toBe('First thoughts');
    await page.getByLabel('Message').fill('Second thoughts');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/folder=Sent/);
    expect(await page.locator('#messages').textContent()).toContain('Half written');
    const drafts = await server.api(`/emails?account=${server.inbox}&folder=Drafts`);
    expect(drafts.json.data.emails).toEqual([]);
  });

  it('labels a message from the reader, and flags and moves it', async () => {
    await page.goto(`${server.baseUrl}/labels`);
    await page.getByLabel('Name').fill('needs-reply');
    await page.getByRole('radio', { name: 'Green' }).check();
    await page.getByRole('button', { name: 'Create label' }).click();
    await page.waitForURL(/done=label-created/);
    await checkPage(page, 'labels');

    await page.goto(listUrl());
    await page.getByRole('link', { name: /Arrived while you looked/ }).click();
    await page.getByRole('button', { name: 'Add label' }).click();
    await page.waitForURL(/\/mail\/message\?/);
    expect(await page.locator('.labels .chip').textContent()).toContain('needs-reply');
    await page.getByRole('button', { name: 'Flag' }).click();
    await page.getByRole('button', { name: 'Unflag' }).waitFor();
    await page.getByLabel('Move to folder').selectOption('Trash');
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await page.waitForURL(/folder=Trash/);
    expect(await page.locator('#messages').textContent()).toContain('Arrived while you looked');
    const trash = await server.api(`/emails?account=${server.inbox}&folder=Trash`);
    expect(trash.json.data.emails[0]).toMatchObject({ flags: expect.arrayContaining(['\\Flagged']) });
    expect(trash.json.data.emails[0].labels[0]).toMatchObject({ name: 'needs-reply', color: '#22c55e' });
  });

  it('searches, filters unread and shows a conversation', async () => {
    await page.goto(`${listUrl()}&q=analytical`);
    expect(await page.locator('#messages li').count()).toBe(1);
    await page.goto(`${listUrl()}&q=nothingmatchesthis`);
    expect(await page.locator('#empty-list').textContent()).toMatch(/Nothing matches/);
    const email = (await server.api(`/emails?account=${server.inbox}&folder=Sent`)).json.data.emails.find(
      (e: { subject: string }) => e.subject.startsWith('Re:'),
    );
    await page.goto(
      `${server.baseUrl}/mail/thread?account=${encodeURIComponent(server.inbox)}&id=${email.threadId}`,
    );
    expect(await page.locator('.thread-list li').count()).toBe(2);
    await checkPage(page, 'thread');
  });
});
