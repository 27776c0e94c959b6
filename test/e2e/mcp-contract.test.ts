// Engines: SQLite only: the MCP tools' schemas, a door rule.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../../src/mailbox/operations/admin.js';
import { call, callError, connect } from '../helpers/mcp.js';
import type { ToolErrorBody } from '../helpers/mcp.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

type Effect = Required<
  Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>
>;
const effect = (
  readOnly: boolean,
  destructive: boolean,
  idempotent: boolean,
  openWorld: boolean,
): Effect => ({
  readOnlyHint: readOnly,
  destructiveHint: destructive,
  idempotentHint: idempotent,
  openWorldHint: openWorld,
});

/** Changes nothing; a repeat does nothing more; stays inside the server. */
const READS = effect(true, false, true, false);
/** Mail to the world: adds a message, loses nothing, and a repeat sends again. */
const SENDS = effect(false, false, false, true);

/**
 * What each tool does, in MCP's terms: destructive when something can be lost for good (a
 * deletion, a draft's text replaced), idempotent when a second identical call has no further
 * effect (a second send_draft or delete_draft finds no draft; a second create_label meets the
 * name taken), open-world when it reaches people outside the server (sending mail).
 */
const EFFECTS: Record<string, Effect> = {
  list_inboxes: READS,
  list_emails: READS,
  read_email: READS,
  wait_for_email: READS,
  list_threads: READS,
  read_thread: READS,
  get_attachment: READS,
  list_labels: READS,
  send_email: SENDS,
  reply_to_email: SENDS,
  forward_email: SENDS,
  send_draft: { ...SENDS, idempotentHint: true },
  update_email: effect(false, false, true, false),
  delete_email: effect(false, true, false, false),
  create_draft: effect(false, false, false, false),
  update_draft: effect(false, true, true, false),
  delete_draft: effect(false, true, true, false),
  create_label: effect(false, false, true, false),
  label_email: effect(false, false, true, false),
  list_pending: READS,
  cancel_send: effect(false, false, true, false),
};

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

    it('describes every input property of every tool', async () => {
      const { tools } = await client.listTools();
      const undescribed = tools.flatMap((tool) =>
        Object.entries(tool.inputSchema.properties ?? {}).flatMap(([name, property]) => {
          const description = (property as { description?: unknown }).description;
          return typeof description === 'string' && description.trim() !== '' ? [] : [`${tool.name}.${name}`];
        }),
      );
      expect(undescribed).toEqual([]);
      const account = tools.find((tool) => tool.name === 'read_email')!.inputSchema.properties!.account;
      expect((account as { description: string }).description).toMatch(/list_inboxes/);
    });

    it('gives every tool all four hints, true to what it does', async () => {
      const { tools } = await client.listTools();
      const said = Object.fromEntries(
        tools.map((tool) => {
          const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations ?? {};
          return [tool.name, { readOnlyHint, destructiveHint, idempotentHint, openWorldHint }];
        }),
      );
      expect(said).toEqual(EFFECTS);
    });

    it('a second send_draft or delete_draft of the same draft does nothing more', async () => {
      const bob = await server.addUser('bob-hints', 'bob-hints');
      const { draft } = await call(client, 'create_draft', {
        account: server.inbox,
        to: bob.inbox,
        subject: 'Sent once',
        text: 'once',
      });
      await call(client, 'send_draft', { account: server.inbox, uid: draft.uid });
      expect((await callError(client, 'send_draft', { account: server.inbox, uid: draft.uid })).code).toBe(
        'not_found',
      );
      const received = await server.api(`/emails?account=${bob.inbox}`, { key: bob.key });
      expect(received.json.data.emails.map((e: { subject: string }) => e.subject)).toEqual(['Sent once']);

      const scrap = await call(client, 'create_draft', { account: server.inbox, subject: 'Scrap' });
      await call(client, 'delete_draft', { account: server.inbox, uid: scrap.draft.uid });
      const again = await callError(client, 'delete_draft', { account: server.inbox, uid: scrap.draft.uid });
      expect(again.code).toBe('not_found');
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
