import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addLocalInbox, addUser, createKey } from '../../src/mailbox/operations/admin.js';
import { launchBrowser } from '../helpers/browser.js';
import { signInWithLink } from '../helpers/dashboard.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** Contract 3: a 403 for an account names it and, when the key reaches one inbox, suggests that one. */
describe('a 403 for an account says which account and what the key reaches', { timeout: 60_000 }, () => {
  let server: TestServer;
  let bob: { key: string; inbox: string };
  let ghost: string;
  beforeAll(async () => {
    server = await startServer();
    bob = await server.addUser('bob');
    ghost = `ghost@${server.inbox.split('@')[1]}`;
  });
  afterAll(async () => server?.stop());

  const refusal = async (path: string, key: string, body?: unknown) => {
    const res = await server.api(path, { key, ...(body ? { method: 'POST', body } : {}) });
    expect(res.status, path).toBe(403);
    expect(res.json.error.code).toBe('forbidden');
    return res.json.error.message as string;
  };

  it('names the account asked for and the one inbox the key reaches, the same whether the account exists or not', async () => {
    const someoneElses = await refusal(`/emails?account=${server.inbox}`, bob.key);
    expect(someoneElses).toBe(
      `account ${server.inbox} is not one of your inboxes; your inbox is ${bob.inbox}`,
    );
    const nobodys = await refusal(`/emails?account=${ghost}`, bob.key);
    expect(nobodys).toBe(someoneElses.replace(server.inbox, ghost));

    // Every verb that takes an account refuses in the same words.
    const send = { from: server.inbox, to: ['x@example.com'], subject: 'S', text: 'T' };
    expect(await refusal('/emails/send', bob.key, send)).toBe(someoneElses);
    expect(await refusal('/folders?account=' + server.inbox, bob.key)).toBe(someoneElses);
    const webhook = { url: 'http://127.0.0.1:9/hook', events: ['email.received'], accounts: [server.inbox] };
    expect(await refusal('/webhooks', bob.key, webhook)).toBe(someoneElses);
  });

  it('names every inbox of a key that reaches a few, and says where to list many', async () => {
    const deps = server.mailroom.deps;
    const carol = await addUser(deps, 'carol');
    const carolKey = (await createKey(deps, carol.id)).key;
    const domain = server.inbox.split('@')[1];
    expect(await refusal(`/emails?account=${ghost}`, carolKey)).toBe(
      `account ${ghost} is not one of your inboxes; you have no inbox yet`,
    );
    for (const name of ['carol1', 'carol2', 'carol3'])
      await addLocalInbox(deps, `${name}@${domain}`, carol.id);
    expect(await refusal(`/emails?account=${ghost}`, carolKey)).toBe(
      `account ${ghost} is not one of your inboxes; your inboxes are carol1@${domain}, carol2@${domain} and carol3@${domain}`,
    );
    for (const name of ['carol4', 'carol5', 'carol6'])
      await addLocalInbox(deps, `${name}@${domain}`, carol.id);
    expect(await refusal(`/emails?account=${ghost}`, carolKey)).toMatch(
      new RegExp(`^account ${ghost} is not one of your inboxes; you have 6 inboxes \\(GET /api/v1/accounts`),
    );
    // What was asked is shown as asked, quoted when it holds spaces or quotes.
    expect(await refusal(`/emails?account=${encodeURIComponent('no "such" inbox')}`, bob.key)).toBe(
      `account "no \\"such\\" inbox" is not one of your inboxes; your inbox is ${bob.inbox}`,
    );
  });

  it('says the same to an MCP tool', async () => {
    const client = new Client({ name: 'mailroom-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${bob.key}` } },
      }),
    );
    try {
      const result = (await client.callTool({
        name: 'list_emails',
        arguments: { account: server.inbox },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      const first = result.content[0];
      const { error } = JSON.parse(first?.type === 'text' ? first.text : '{}') as {
        error: { code: string; message: string };
      };
      expect(error).toEqual({
        code: 'forbidden',
        message: `account ${server.inbox} is not one of your inboxes; your inbox is ${bob.inbox}`,
      });
    } finally {
      await client.close();
    }
  });

  describe('in the dashboard', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => browser?.close());

    it('shows a person the same words for a mail list of an inbox that is not theirs', async () => {
      const { context, page } = await signInWithLink(browser, server);
      try {
        const res = await page.goto(`${server.baseUrl}/mail?account=${encodeURIComponent(bob.inbox)}`);
        expect(res?.status()).toBe(403);
        expect(await page.locator('main').textContent()).toContain(
          `Account ${bob.inbox} is not one of your inboxes; your inbox is ${server.inbox}`,
        );
      } finally {
        await context.close();
      }
    });
  });
});
