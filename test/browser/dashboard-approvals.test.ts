// Engines: SQLite only: the dashboard's Approvals page and compose's send later in Chromium (over the verbs test/mailbox/approvals.test.ts runs on both engines).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { checkPage, signInWithLink } from '../helpers/dashboard.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';

describe('approvals and send later in the dashboard', () => {
  let capture: CaptureServer;
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    capture = await startCaptureServer();
    [server, browser] = await Promise.all([
      startServer({ outbound: 'relay', relayUrl: capture.url }),
      launchBrowser(),
    ]);
    ({ context, page } = await signInWithLink(browser, server));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    await capture?.close();
  });

  const send = (subject: string) =>
    server.api('/emails/send', {
      method: 'POST',
      body: {
        from: server.inbox,
        to: 'bob@example.com',
        cc: 'carol@example.com',
        subject,
        text: `body of ${subject}`,
      },
    });
  const relayed = (subject: string) =>
    capture.messages.filter((m) => m.raw.toString('latin1').includes(`Subject: ${subject}`));

  it('shows each waiting send whole with a count in the navigation; approve and reject are one click each', async () => {
    await page.goto(`${server.baseUrl}/inboxes/${encodeURIComponent(server.inbox)}/settings`);
    await page.getByLabel('Mode').selectOption('approve_all');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/done=settings-saved/);
    expect((await server.api(`/accounts/${server.inbox}/settings`)).json.data.settings.mode).toBe(
      'approve_all',
    );
    expect((await send('first contact')).status).toBe(202);
    expect((await send('too early')).status).toBe(202);

    await page.goto(`${server.baseUrl}/approvals`);
    const nav = page.getByRole('navigation', { name: 'Sections' });
    expect(await nav.getByRole('link', { name: /Approvals/ }).textContent()).toMatch(
      /Approvals\s*2\s*waiting/,
    );
    const first = page.getByRole('article', { name: 'first contact' });
    const shown = await first.textContent();
    expect(shown).toContain('bob@example.com');
    expect(shown).toContain('carol@example.com');
    expect(shown).toContain('body of first contact');
    expect(shown).toContain('approve_all');
    // The test server's key is the one made at first start, named "bootstrap".
    expect(shown).toMatch(/Asked by\s*API key “bootstrap” \(key_/);
    await checkPage(page, 'approvals');

    await first.getByRole('button', { name: 'Approve and send “first contact”' }).click();
    await page.waitForURL(/done=approval-approved/);
    await eventually(() => relayed('first contact').length === 1);

    const second = page.getByRole('article', { name: 'too early' });
    await second.getByLabel('Reason').fill('not yet');
    await second.getByRole('button', { name: 'Reject “too early”' }).click();
    await page.waitForURL(/done=approval-rejected/);
    expect(await page.getByText('Nothing waits for you.').count()).toBe(1);
    expect(await page.getByTestId('approvals-count').count()).toBe(0);
    const drafts = await server.api(`/emails?account=${server.inbox}&folder=Drafts`);
    expect(drafts.json.data.emails).toEqual([
      expect.objectContaining({ subject: 'too early', rejectedReason: 'not yet' }),
    ]);
    expect(relayed('too early')).toHaveLength(0);
    await server.api(`/accounts/${server.inbox}/settings`, { method: 'PATCH', body: { mode: 'autonomous' } });
  });

  it('sends later from compose: the message waits in Outbox for its time', async () => {
    await page.goto(`${server.baseUrl}/compose?account=${encodeURIComponent(server.inbox)}`);
    await page.getByLabel('To').fill('dave@example.com');
    await page.getByLabel('Subject').fill('next week');
    await page.getByLabel('Message').fill('see you');
    const later = new Date(Date.now() + 7 * 86_400_000);
    await page.getByLabel(/Send later/).fill(later.toISOString().slice(0, 16));
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL(/done=scheduled/);
    await checkPage(page, 'outbox');
    const outbox = await server.api(`/emails?account=${server.inbox}&folder=Outbox`);
    expect(outbox.json.data.emails).toEqual([expect.objectContaining({ subject: 'next week' })]);
    expect(relayed('next week')).toHaveLength(0);

    const uid = outbox.json.data.emails[0].uid as number;
    await page.goto(`${server.baseUrl}/mail/message?account=${encodeURIComponent(server.inbox)}&uid=${uid}`);
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Cancel send' }).click();
    await page.waitForURL(/done=send-cancelled/);
    await page.goto(`${server.baseUrl}/mail/message?account=${encodeURIComponent(server.inbox)}&uid=${uid}`);
    expect(await page.getByTestId('rejected-reason').textContent()).toContain('cancelled');
    await checkPage(page, 'cancelled-draft');
  });
});
