// Engines: SQLite only: what `wait` means on each HTTP route, a door rule.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailroomClient } from '../../src/client/index.js';
import type { MailroomClient } from '../../src/client/index.js';
import { callTool, connect as connectMcp } from '../helpers/mcp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { deliverDuringWait } from '../helpers/wait.js';

/** A wait through one door: the subject of the email it answered, or null when none came. */
type Door = (filters: { subject: string; since?: string }) => Promise<string | null>;

/**
 * Contract 13: every way of waiting means the same. It answers at once when matching mail is
 * already there, and `since` narrows it to mail received at or after a time, whatever the sender's
clock wrote in the Date header.
 */
describe('every way of waiting for mail', { timeout: 120_000 }, () => {
  let server: TestServer;
  let mcp: Client;
  let client: MailroomClient;
  beforeAll(async () => {
    server = await startServer();
    mcp = await connectMcp(server, server.key);
    client = createMailroomClient({ url: server.baseUrl, apiKey: server.key });
  });
  afterAll(async () => {
    await mcp.close();
    await server.stop();
  });

  const account = () => server.inbox;
  const doors: Record<string, Door> = {
    'GET /emails?wait=': async ({ subject, since }) => {
      const query = new URLSearchParams({
        account: account(),
        subject,
        wait: '20',
        ...(since ? { since } : {}),
      });
      const res = await server.api(`/emails?${query}`);
      expect(res.status).toBe(200);
      return res.json.data.emails[0]?.subject ?? null;
    },
    'MCP wait_for_email': async (filters) => {
      const answer = await callTool(mcp, 'wait_for_email', { account: account(), ...filters, timeout: 20 });
      expect(answer.error).toBeUndefined();
      return answer.data.email?.subject ?? null;
    },
    'the embedded waitForEmail': async (filters) => {
      const email = await server.mailroom.waitForEmail({ account: account(), ...filters, timeoutMs: 20_000 });
      return email.subject;
    },
    'the typed client’s waitForEmail': async (filters) => {
      const email = await client.waitForEmail({ account: account(), ...filters, timeoutMs: 20_000 });
      return email.subject;
    },
  };

  const mail = (subject: string, date?: string) =>
    server.sendMail({
      from: 'alice@example.com',
      to: server.inbox,
      subject,
      text: subject,
      ...(date ? { date: new Date(date) } : {}),
    });

  /** When the server received the one email with this subject, in milliseconds. */
  const receivedAt = async (subject: string) => {
    const page = await server.api(`/emails?account=${server.inbox}&subject=${encodeURIComponent(subject)}`);
    return Date.parse(page.json.data.emails[0].receivedAt as string);
  };

  Object.entries(doors).forEach(([name, door], i) => {
    it(`${name}: at once with matching mail already there; since counts by arrival, not the Date header`, async () => {
      const tag = `door${i}`;
      // Senders' clocks far ahead and far behind: neither decides what `since` lets through.
      await mail(`Ahead news ${tag}`, '2099-01-01T00:00:00Z');
      await mail(`Behind ${tag}`, '2020-01-01T00:00:00Z');
      await eventually(
        async () =>
          (await server.api(`/emails?account=${server.inbox}&q=${tag}`)).json.data.emails.length === 2,
      );

      expect(await door({ subject: `Ahead news ${tag}` })).toBe(`Ahead news ${tag}`);
      // Received at `since`: it counts, though its Date header says 2020.
      const behind = await receivedAt(`Behind ${tag}`);
      expect(await door({ subject: `Behind ${tag}`, since: new Date(behind).toISOString() })).toBe(
        `Behind ${tag}`,
      );

      // Both came before this moment: a wait since then is for mail still to come, though one
      // of them is dated 2099.
      const since = Math.max(behind, await receivedAt(`Ahead news ${tag}`)) + 1;
      await eventually(() => Date.now() >= since);
      const waiting = door({ subject: `news ${tag}`, since: new Date(since).toISOString() });
      const answered = await deliverDuringWait(server, waiting, {
        from: 'alice@example.com',
        to: server.inbox,
        subject: `Fresh news ${tag}`,
        text: 'fresh',
      });
      expect(answered).toBe(`Fresh news ${tag}`);
    });
  });
});
