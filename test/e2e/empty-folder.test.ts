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
  it('moves every email of the folder to Trash, keeping uids, and answers how many', async () => {
    await deliver('one', 'two', 'three');
    const before = (await server.api(`/emails?${acc}`)).json.data.emails as { uid: number }[];
    const res = await empty('folder=INBOX');
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ folder: 'INBOX', count: 3, deleted: false, movedTo: 'Trash' });
    expect(await subjectsIn('INBOX')).toEqual([]);
    expect(await subjectsIn('Trash')).toEqual(['one', 'three', 'two']);
    const trashed = (await server.api(`/emails?${acc}&folder=Trash`)).json.data.emails as { uid: number }[];
    expect(trashed.map((e) => e.uid).sort()).toEqual(before.map((e) => e.uid).sort());
  });

  it('empties Trash for good, and any folder for good with permanent=true', async () => {
    const res = await empty('folder=Trash');
    expect(res.json.data).toEqual({ folder: 'Trash', count: 3, deleted: true, movedTo: null });
    expect(await subjectsIn('Trash')).toEqual([]);

    await deliver('four', 'five');
    const forGood = await empty('folder=inbox&permanent=true');
    expect(forGood.json.data).toEqual({ folder: 'INBOX', count: 2, deleted: true, movedTo: null });
    expect(await subjectsIn('INBOX')).toEqual([]);
    expect(await subjectsIn('Trash')).toEqual([]);
    // Gone from the search index too.
    expect((await server.api(`/emails?${acc}&q=four`)).json.data.emails).toEqual([]);
  });

  it('answers 0 for an empty folder and leaves other folders alone', async () => {
    await deliver('stays');
    await server.api('/folders', { body: { account: server.inbox, name: 'Archive' } });
    expect((await empty('folder=Archive')).json.data).toEqual({
      folder: 'Archive',
      count: 0,
      deleted: false,
      movedTo: 'Trash',
    });
    expect(await subjectsIn('INBOX')).toEqual(['stays']);
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
