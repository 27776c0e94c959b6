// Engines: SQLite only: the dashboard's forms parse through the contract the same on either engine; test/e2e/postgres-doors.test.ts proves the dashboard on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUserPassword } from '../../src/mailbox/operations/sign-in.js';
import { postForm, sessionCookie } from '../helpers/dashboard-forms.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const ADMIN_TOKEN = 'admin-token-of-the-key-form-test';

/** The page's text with the entities a message may need turned back into characters. */
const textOf = (html: string) =>
  html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

describe("the dashboard's forms meet the API's limits (one contract)", { timeout: 120_000 }, () => {
  let server: TestServer;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    server = await startServer({ adminToken: ADMIN_TOKEN });
    await setUserPassword(server.mailroom.deps, 'default', PASSWORD);
    cookie = sessionCookie(
      await postForm(server.baseUrl, '/sign-in', { name: 'default', password: PASSWORD }),
    )!;
    const page = await (await fetch(`${server.baseUrl}/compose`, { headers: { cookie } })).text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  });
  afterAll(async () => server?.stop());

  const compose = (fields: Record<string, string>) =>
    postForm(
      server.baseUrl,
      '/compose',
      { _csrf: csrf, mode: 'new', account: server.inbox, to: 'bob@example.com', text: 'Hello', ...fields },
      { headers: { cookie } },
    );
  const folderCount = async (folder: string) =>
    (await server.api(`/emails?account=${encodeURIComponent(server.inbox)}&folder=${folder}`)).json.data
      .emails.length as number;

  it('refuses a 2,001-character subject with the words the API gives, and sends and saves nothing', async () => {
    const subject = 'x'.repeat(2001);
    const api = await server.api('/emails/send', {
      body: { from: server.inbox, to: 'bob@example.com', subject, text: 'Hello' },
    });
    expect(api.status).toBe(400);
    const said = api.json.error.details[0].message as string;
    expect(api.json.error.details[0].path).toBe('subject');

    const sent = await compose({ subject });
    expect(sent.status).toBe(400);
    expect(textOf(await sent.text())).toContain(`Subject: ${said}`);
    const saved = await compose({ subject, intent: 'save' });
    expect(saved.status).toBe(400);
    expect(textOf(await saved.text())).toContain(`Subject: ${said}`);

    expect(await folderCount('Sent')).toBe(0);
    expect(await folderCount('Drafts')).toBe(0);
  });

  it('sends a 2,000-character subject, the most the API takes', async () => {
    const answer = await compose({ subject: 'y'.repeat(2000) });
    expect(answer.status).toBe(303);
    expect(await folderCount('Sent')).toBe(1);
  });

  it("refuses a 101-character key name with the admin API's words, and makes no key", async () => {
    const keyCount = async () => {
      const answer = await server.api('/admin/v1/keys', { key: ADMIN_TOKEN });
      expect(answer.status, answer.text).toBe(200);
      return answer.json.data.keys.length as number;
    };
    const before = await keyCount();
    const api = await server.api('/admin/v1/keys', {
      key: ADMIN_TOKEN,
      body: { user: 'default', name: 'k'.repeat(101) },
    });
    expect(api.status).toBe(400);
    const said = api.json.error.details[0].message as string;

    const answer = await postForm(
      server.baseUrl,
      '/keys',
      { _csrf: csrf, name: 'k'.repeat(101) },
      { headers: { cookie } },
    );
    expect(answer.status).toBe(400);
    expect(textOf(await answer.text())).toContain(said);
    expect(await keyCount()).toBe(before);
  });
});
