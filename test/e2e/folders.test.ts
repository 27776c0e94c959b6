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
    expect(names).toEqual(['INBOX', 'Sent', 'Drafts', 'Trash', 'Spam', 'Receipts']);
  });

  it('a name taken in any case is 409, standard folders included', async () => {
    for (const name of ['receipts', 'RECEIPTS', 'inbox', 'trash', ' Sent ']) {
      const res = await createFolder(name);
      expect(res.status).toBe(409);
      expect(res.json.error.code).toBe('conflict');
    }
  });

  it.each([
    ['empty', ''],
    ['only spaces', '  '],
    ['101 characters', 'f'.repeat(101)],
    ['a slash', 'a/b'],
    ['a newline', 'two\nlines'],
    ['not a string', 12],
    ['a dot', '.'],
    ['two dots', '..'],
    ['two dots with spaces', ' .. '],
    ['only dots', '...'],
  ])('a name that is %s is 400 on name', async (_what, name) => {
    const res = await createFolder(name);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation_error');
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toEqual(['name']);
  });

  it('accepts 1 and 100 characters, spaces and non-ASCII; trims the ends', async () => {
    expect((await createFolder('f')).status).toBe(201);
    expect((await createFolder('g'.repeat(100))).status).toBe(201);
    const res = await createFolder('  Résumés 2026  ');
    expect(res.json.data.folder.name).toBe('Résumés 2026');
    expect((await folders()).has('Résumés 2026')).toBe(true);
  });

  it('accepts dots beside other characters, at either end too', async () => {
    for (const name of ['.archive', 'v2.', 'a..b']) {
      expect((await createFolder(name)).status, name).toBe(201);
      expect((await deleteFolder(name)).status, name).toBe(200);
    }
  });

  it('another user may use the same name in their inbox, but not create one in yours (403)', async () => {
    const theirs = await server.api(`/folders?account=${encodeURIComponent(other.inbox)}`, {
      body: { name: 'Receipts' },
      key: other.key,
    });
    expect(theirs.status).toBe(201);
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
  it('follow arrivals, reads, moves and deletes', async () => {
    expect((await createFolder('Counted')).status).toBe(201);
    const start = await folders();
    const [a, b, c] = [await deliver(), await deliver(), await deliver()];
    let now = await folders();
    expect(now.get('INBOX')).toMatchObject({
      total: start.get('INBOX')!.total + 3,
      unread: start.get('INBOX')!.unread + 3,
    });

    await patch(a, { action: 'read' });
    await patch(b, { action: 'move', folder: 'Counted' });
    await patch(a, { action: 'move', folder: 'Counted' });
    await server.api(`/emails/${c}?${acc}`, { method: 'DELETE' });
    now = await folders();
    expect(now.get('INBOX')).toMatchObject({
      total: start.get('INBOX')!.total,
      unread: start.get('INBOX')!.unread,
    });
    expect(now.get('Counted')).toMatchObject({ total: 2, unread: 1 });
    expect(now.get('Trash')).toMatchObject({
      total: start.get('Trash')!.total + 1,
      unread: start.get('Trash')!.unread + 1,
    });

    await patch(b, { action: 'read' });
    expect((await folders()).get('Counted')).toMatchObject({ total: 2, unread: 0 });
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

  it('moves the mail of a deleted folder to Trash, keeping uids, labels and flags', async () => {
    await createFolder('Old projects');
    const [x, y] = [await deliver(), await deliver()];
    await patch(x, { action: 'move', folder: 'Old projects' });
    await patch(y, { action: 'flag' });
    await patch(y, { action: 'move', folder: 'Old projects' });
    const trashBefore = (await folders()).get('Trash')!.total;

    const res = await deleteFolder('Old projects');
    expect(res.json.data).toEqual({ name: 'Old projects', deleted: true, movedToTrash: 2 });
    expect((await folders()).has('Old projects')).toBe(false);
    expect((await folders()).get('Trash')!.total).toBe(trashBefore + 2);
    const yNow = (await server.api(`/emails/${y}?${acc}&folder=Trash`)).json.data.email;
    expect(yNow).toMatchObject({ uid: y, folder: 'Trash', flags: ['\\Flagged'] });
    expect((await server.api(`/emails/${x}?${acc}&folder=Trash`)).json.data.email.uid).toBe(x);
  });

  it('deletes a folder named ".." made before such names were refused, addressed with a space', async () => {
    // A URL path cannot carry ".." (clients resolve it away); names are trimmed, so " .." names it.
    const inbox = (await server.mailroom.deps.store.inboxes.findByAddress(server.inbox))!;
    await server.mailroom.deps.store.folders.create(inbox.id, '..');
    const uid = await deliver();
    expect((await patch(uid, { action: 'move', folder: '..' })).status).toBe(200);

    const res = await deleteFolder(' ..');
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ name: '..', deleted: true, movedToTrash: 1 });
    expect((await folders()).has('..')).toBe(false);
    expect((await server.api(`/emails/${uid}?${acc}&folder=Trash`)).status).toBe(200);
  });

  it('standard folders cannot be deleted: 400 with a clear message', async () => {
    for (const name of ['INBOX', 'Sent', 'Drafts', 'Trash', 'spam']) {
      const res = await deleteFolder(name);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('validation_error');
      expect(res.json.error.message).toMatch(/standard folder/);
      expect(res.json.error.details[0].path).toBe('name');
    }
    expect([...(await folders()).keys()].slice(0, 5)).toEqual(['INBOX', 'Sent', 'Drafts', 'Trash', 'Spam']);
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
