import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../../src/mailbox/operations/admin.js';
import { callError, connect } from '../helpers/mcp.js';
import type { ToolErrorBody } from '../helpers/mcp.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** The HTTP error with the place it names dropped: a tool has only its arguments to look in. */
function withoutPlace(error: ToolErrorBody): ToolErrorBody {
  const unplaced = (message: string) => message.replaceAll(' (in the JSON body)', '');
  return {
    code: error.code,
    message: unplaced(error.message),
    details: error.details?.map((detail) => ({ ...detail, message: unplaced(detail.message) })),
  };
}

describe(
  'MCP tools: every input described, true hints, the HTTP API’s errors (contract 3, 13)',
  { timeout: 60_000 },
  () => {
    let server: TestServer;
    let client: Client;
    beforeAll(async () => {
      server = await startServer();
      client = await connect(server, server.key);
    });
    afterAll(async () => {
      await client.close();
      await server.stop();
    });

    it('words a bad send the same through send_email as through POST /emails/send', async () => {
      const cases: Record<string, unknown>[] = [
        { from: server.inbox, to: 'bob@example.com', text: 'no subject' },
        { from: server.inbox, to: 42, subject: 'a number for a recipient', text: 'x' },
        { from: server.inbox, to: 'bob@example.com', subject: 'a body by another name', body: 'x' },
        { from: server.inbox, subject: 42, txet: 'three at once' },
      ];
      for (const args of cases) {
        const http = await server.api('/emails/send', { method: 'POST', body: args });
        expect(http.status, JSON.stringify(args)).toBe(400);
        const mcp = await callError(client, 'send_email', args);
        expect(mcp, JSON.stringify(args)).toEqual(withoutPlace(http.json.error));
      }
      const missing = await callError(client, 'send_email', cases[0]!);
      expect(missing.message).toBe('subject: subject is required');
    });

    it('words a bad label the same through create_label as through POST /labels', async () => {
      for (const args of [{}, { name: 'Red', color: 'red' }, { name: 'Red', colour: '#ff0000' }]) {
        const http = await server.api('/labels', { method: 'POST', body: args });
        expect(http.status, JSON.stringify(args)).toBe(400);
        expect(await callError(client, 'create_label', args), JSON.stringify(args)).toEqual(
          withoutPlace(http.json.error),
        );
      }
    });

    it('says the words of HTTP for a field a tool takes of its own', async () => {
      const missing = await callError(client, 'read_email', { uid: 1 });
      expect(missing).toMatchObject({ code: 'validation_error', message: 'account: account is required' });
      const typo = await callError(client, 'list_emails', { account: server.inbox, folderr: 'INBOX' });
      expect(typo.message).toBe('folderr: unknown field "folderr"; did you mean "folder"?');
    });

    it('refuses an unknown key and a revoked one with unauthorized', async () => {
      await expect(connect(server, 'mr_not_a_key_of_this_server')).rejects.toMatchObject({
        code: 401,
        message: expect.stringContaining('"code":"unauthorized"'),
      });
      const carol = await server.addUser('carol-revoked', 'carol-revoked');
      const carols = await connect(server, carol.key);
      try {
        const [key] = await server.mailroom.deps.store.apiKeys.list(carol.userId);
        await revokeKey(server.mailroom.deps, key!.id);
        await expect(carols.callTool({ name: 'list_inboxes', arguments: {} })).rejects.toMatchObject({
          code: 401,
          message: expect.stringContaining('"code":"unauthorized"'),
        });
      } finally {
        await carols.close();
      }
    });
  },
);
