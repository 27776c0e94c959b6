// Engines: SQLite only: the MCP door's answer to a refused send; the lists' rules run on both engines in test/mailbox/address-lists.test.ts.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callError, connect } from '../helpers/mcp.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('a send refused by the lists, through MCP', () => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await startServer();
    client = await connect(server, server.key);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('answers recipient_blocked with each refused address and its reason, and saves nothing', async () => {
    await server.api('/lists/send/allow', { method: 'POST', body: { entry: 'partner.example' } });
    const error = await callError(client, 'send_email', {
      from: server.inbox,
      to: ['ann@partner.example'],
      cc: ['bob@stranger.example'],
      subject: 'refused',
      text: 'x',
    });
    expect(error.code).toBe('recipient_blocked');
    expect(error.details).toEqual([
      expect.objectContaining({ path: 'cc', address: 'bob@stranger.example', reason: 'not_allowed' }),
    ]);
    const sent = await server.api(`/emails?account=${server.inbox}&folder=Sent`);
    expect(sent.json.data.emails).toEqual([]);
  });
});
