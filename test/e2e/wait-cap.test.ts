// Engines: SQLite only: the cap on waiting HTTP requests, a door rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connect as connectMcp } from '../helpers/mcp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** The default of MAILROOM_MAX_WAITS_PER_KEY, as contract 13 gives it. */
const MAX = 50;

/** MAILROOM_MAX_WAITS_PER_KEY (contract 13): one key holds at most so many waits at once. */
describe('waits one key may hold at once', { timeout: 120_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server.stop());

  const waiting = () => server.mailroom.deps.waiters!.size;

  it(`is ${MAX} by default, across GET /emails?wait= and MCP wait_for_email; 429 beyond; a freed slot serves at once`, async () => {
    const judy = await server.addUser('judy-wait-cap', 'judy-wait-cap');
    const mcp = await connectMcp(server, judy.key);
    const wait = (subject: string, seconds = 300) =>
      server.api(`/emails?account=${judy.inbox}&subject=${subject}&wait=${seconds}`, { key: judy.key });
    try {
      const first = wait('First');
      const held = Array.from({ length: MAX - 2 }, () => wait('Held'));
      const byMcp = callTool(mcp, 'wait_for_email', { account: judy.inbox, subject: 'By-MCP', timeout: 300 });
      await eventually(() => waiting() === MAX, 60_000);

      // One more, by either door: refused at once (a wait that was let in would answer 200 after 5 s).
      const refused = await wait('One-too-many', 5);
      expect(refused.status).toBe(429);
      expect(refused.json.error.code).toBe('rate_limited');
      expect(refused.json.error.message).toContain('MAILROOM_MAX_WAITS_PER_KEY');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const refusedByMcp = await callTool(mcp, 'wait_for_email', {
        account: judy.inbox,
        subject: 'One-too-many',
        timeout: 5,
      });
      expect(refusedByMcp.error?.code).toBe('rate_limited');

      // Other keys wait as before, and this key still lists without waiting.
      const other = await server.addUser('ken-wait-cap', 'ken-wait-cap');
      const otherWait = await server.api(`/emails?account=${other.inbox}&wait=1`, { key: other.key });
      expect(otherWait.status).toBe(200);
      expect((await server.api(`/emails?account=${judy.inbox}`, { key: judy.key })).status).toBe(200);

      // A wait answered by its mail gives its slot back before its answer leaves.
      await server.sendMail({ from: 'a@example.com', to: judy.inbox, subject: 'First', text: 'x' });
      expect((await first).json.data.emails[0].subject).toBe('First');
      const taken = await wait('Slot-again', 1);
      expect(taken.status).toBe(200);
      expect(taken.json.data.emails).toEqual([]);

      // The rest end with their mail, and every slot is free again.
      await server.sendMail({ from: 'a@example.com', to: judy.inbox, subject: 'Held', text: 'x' });
      await server.sendMail({ from: 'a@example.com', to: judy.inbox, subject: 'By-MCP', text: 'x' });
      expect((await Promise.all(held)).every((res) => res.status === 200)).toBe(true);
      expect((await byMcp).data.email.subject).toBe('By-MCP');
      expect(waiting()).toBe(0);
    } finally {
      await mcp.close();
    }
  });
});
