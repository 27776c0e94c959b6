// Engines: SQLite only: the folder routes as HTTP (status codes, the body's validation, a name in the path); what creating, counting and deleting folders does to the data is test/mailbox/folders.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let acc: string;
let other: { key: string; inbox: string };

beforeAll(async () => {
  server = await startServer();
  acc = `account=${encodeURIComponent(server.inbox)}`;
  other = await server.addUser('other');
});
afterAll(async () => server.stop());

interface FolderItem {
  name: string;
  specialUse: string | null;
  total: number;
  unread: number;
}

async function folders(key?: string, account = server.inbox): Promise<Map<string, FolderItem>> {
  const res = await server.api(`/folders?account=${encodeURIComponent(account)}`, { key });
  return new Map(res.json.data.folders.map((f: FolderItem) => [f.name, f]));
}
const createFolder = (name: unknown, key?: string) => server.api(`/folders?${acc}`, { body: { name }, key });
const deleteFolder = (name: string, key?: string) =>
  server.api(`/folders/${encodeURIComponent(name)}?${acc}`, { method: 'DELETE', key });

let counter = 0;
async function deliver(): Promise<number> {
  const subject = `Filed ${++counter}`;
  await server.sendMail({ from: 'carol@example.com', to: server.inbox, subject, text: 'hello' });
  const list = await server.api(`/emails?${acc}&subject=${encodeURIComponent(subject)}`);
  return list.json.data.emails[0].uid;
}
const patch = (uid: number, body: unknown) => server.api(`/emails/${uid}?${acc}`, { method: 'PATCH', body });

describe('POST /folders', () => {
  it('creates a custom folder, listed with zero counts after the standard ones', async () => {
    const res = await createFolder('Receipts');
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      success: true,
      data: { folder: { name: 'Receipts', specialUse: null, total: 0, unread: 0 } },
    });
    const names = [...(await folders()).keys()];
    expect(names).toEqual(['INBOX', 'Sent', 'Drafts', 'Trash', 'Spam', 'Outbox', 'Receipts']);
  });

  it('a name taken in any case is 409 conflict', async () => {
    const res = await createFolder('RECEIPTS');
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('conflict');
  });

  it.each([
    ['empty', ''],
    ['101 characters', 'f'.repeat(101)],
    ['not a string', 12],
    ['two dots', '..'],
  ])('a name that is %s is 400 on name', async (_what, name) => {
    const res = await createFolder(name);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation_error');
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toEqual(['name']);
  });

  it('trims the ends of a name', async () => {
    const res = await createFolder('  Résumés 2026  ');
    expect(res.json.data.folder.name).toBe('Résumés 2026');
  });

  it('takes a name with dots in the path', async () => {
    expect((await createFolder('v2.')).status).toBe(201);
    expect((await deleteFolder('v2.')).status).toBe(200);
  });

  it("another user's key is 403 in your inbox", async () => {
    const intoMine = await createFolder('Intruder', other.key);
    expect(intoMine.status).toBe(403);
    expect((await folders()).has('Intruder')).toBe(false);
  });

  it('a missing account is 400 naming account', async () => {
    const res = await server.api('/folders', { body: { name: 'NoAccount' } });
    expect(res.status).toBe(400);
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain('account');
  });
});

describe('GET /folders counts', () => {
  it('count the mail of each folder', async () => {
    const start = (await folders()).get('INBOX')!;
    const uid = await deliver();
    expect((await folders()).get('INBOX')).toMatchObject({
      total: start.total + 1,
      unread: start.unread + 1,
    });
    await patch(uid, { action: 'read' });
    expect((await folders()).get('INBOX')).toMatchObject({ total: start.total + 1, unread: start.unread });
  });
});

describe('DELETE /folders/{name}', () => {
  it('deletes an empty custom folder', async () => {
    await createFolder('Short lived');
    const res = await deleteFolder('short LIVED');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      success: true,
      data: { name: 'Short lived', deleted: true, movedToTrash: 0 },
    });
    expect((await folders()).has('Short lived')).toBe(false);
    expect((await server.api(`/emails?${acc}&folder=${encodeURIComponent('Short lived')}`)).status).toBe(404);
    expect((await createFolder('Short lived')).status).toBe(201);
  });

  it('says how many emails of a deleted folder went to Trash', async () => {
    await createFolder('Old projects');
    const uid = await deliver();
    await patch(uid, { action: 'move', folder: 'Old projects' });
    const res = await deleteFolder('Old projects');
    expect(res.json.data).toEqual({ name: 'Old projects', deleted: true, movedToTrash: 1 });
    expect((await server.api(`/emails/${uid}?${acc}&folder=Trash`)).status).toBe(200);
  });

  it('deletes a folder named ".." made before such names were refused, addressed with a space', async () => {
    // A URL path cannot carry ".." (clients resolve it away); names are trimmed, so " .." names it.
    const inbox = (await server.mailroom.deps.store.inboxes.findByAddress(server.inbox))!;
    await server.mailroom.deps.store.folders.create(inbox.id, '..');
    const res = await deleteFolder(' ..');
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ name: '..', deleted: true, movedToTrash: 0 });
  });

  it('standard folders cannot be deleted: 400 with a clear message', async () => {
    for (const name of ['INBOX', 'Sent', 'Drafts', 'Trash', 'spam']) {
      const res = await deleteFolder(name);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('validation_error');
      expect(res.json.error.message).toMatch(/standard folder/);
      expect(res.json.error.details[0].path).toBe('name');
    }
    expect([...(await folders()).keys()].slice(0, 6)).toEqual([
      'INBOX',
      'Sent',
      'Drafts',
      'Trash',
      'Spam',
      'Outbox',
    ]);
  });

  it('an unknown folder is 404', async () => {
    const res = await deleteFolder('Never made');
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
  });

  it("another user's key is 403 and the folder and its mail stay", async () => {
    await createFolder('Guarded');
    const uid = await deliver();
    await patch(uid, { action: 'move', folder: 'Guarded' });
    const res = await deleteFolder('Guarded', other.key);
    expect(res.status).toBe(403);
    expect((await folders()).get('Guarded')).toMatchObject({ total: 1 });
    expect((await server.api(`/emails/${uid}?${acc}&folder=Guarded`)).status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('describes POST /folders and DELETE /folders/{name}', async () => {
    const doc = (await server.api('/openapi.json', { key: null })).json;
    expect(doc.paths['/folders'].post.responses['201']).toBeDefined();
    expect(doc.paths['/folders/{name}'].delete).toBeDefined();
  });
});
