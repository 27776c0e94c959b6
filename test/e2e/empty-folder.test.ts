// Engines: SQLite only: DELETE /emails?account=&folder= as HTTP (its query, answer and status codes); what emptying does to the data is test/mailbox/empty-folder.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let acc: string;

beforeAll(async () => {
  server = await startServer();
  acc = `account=${encodeURIComponent(server.inbox)}`;
});
afterAll(async () => server.stop());

async function deliver(...subjects: string[]): Promise<void> {
  for (const subject of subjects)
    await server.sendMail({ from: 'alice@example.com', to: server.inbox, subject, text: `About ${subject}` });
}

const subjectsIn = async (folder: string) =>
  ((await server.api(`/emails?${acc}&folder=${folder}&limit=100`)).json.data.emails as { subject: string }[])
    .map((e) => e.subject)
    .sort();

const empty = (query: string) => server.api(`/emails?${acc}&${query}`, { method: 'DELETE' });

describe('DELETE /emails?account=&folder=: empty a folder', () => {
  it('answers how many went where, and empties for good with permanent=true', async () => {
    await deliver('one', 'two');
    const res = await empty('folder=INBOX');
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ folder: 'INBOX', count: 2, deleted: false, movedTo: 'Trash' });
    expect(await subjectsIn('Trash')).toEqual(['one', 'two']);
    await deliver('stays');
    const forGood = await empty('folder=trash&permanent=true');
    expect(forGood.json.data).toEqual({ folder: 'Trash', count: 2, deleted: true, movedTo: null });
  });

  it('requires the folder, refuses unknown folders and other users inboxes', async () => {
    const missing = await server.api(`/emails?${acc}`, { method: 'DELETE' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.details.map((d: { path: string }) => d.path)).toContain('folder');
    expect((await empty('folder=Nowhere')).status).toBe(404);
    const stranger = await server.addUser('stranger');
    const other = await server.api(`/emails?${acc}&folder=INBOX`, { method: 'DELETE', key: stranger.key });
    expect(other.status).toBe(403);
    expect(await subjectsIn('INBOX')).toEqual(['stays']);
  });

  it('is in the OpenAPI document as emptyFolder', async () => {
    const doc = (await server.api('/openapi.json')).json;
    const operation = doc.paths['/emails'].delete;
    expect(operation.operationId).toBe('emptyFolder');
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['account', 'folder', 'permanent']),
    );
  });
});
