import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let acc: string;
let stranger: { key: string; inbox: string };

beforeAll(async () => {
  server = await startServer();
  acc = `account=${encodeURIComponent(server.inbox)}`;
  stranger = await server.addUser('stranger');
});
afterAll(async () => server.stop());

let counter = 0;
/** Delivers a fresh mail over SMTP and answers its uid. */
async function deliver(subject = `Message ${++counter}`): Promise<number> {
  await server.sendMail({
    from: 'Alice <alice@example.com>',
    to: server.inbox,
    subject,
    text: `About ${subject}`,
  });
  const list = await server.api(`/emails?${acc}&subject=${encodeURIComponent(subject)}`);
  expect(list.json.data.emails).toHaveLength(1);
  return list.json.data.emails[0].uid;
}

const patch = (uid: number | string, body: unknown, query = '', key?: string) =>
  server.api(`/emails/${uid}?${acc}${query}`, { method: 'PATCH', body, key });
const read = (uid: number, folder = '') =>
  server.api(`/emails/${uid}?${acc}${folder ? `&folder=${folder}` : ''}`);

async function folderCounts(): Promise<Record<string, { total: number; unread: number }>> {
  const res = await server.api(`/folders?${acc}`);
  return Object.fromEntries(
    res.json.data.folders.map((f: { name: string; total: number; unread: number }) => [
      f.name,
      { total: f.total, unread: f.unread },
    ]),
  );
}

describe('PATCH /emails/{id}: read, unread, flag, unflag', () => {
  it('read and unread set and clear \\Seen; flag and unflag set and clear \\Flagged', async () => {
    const uid = await deliver();
    let res = await patch(uid, { action: 'read' });
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
    expect(res.json.data.email).toMatchObject({ uid, folder: 'INBOX', flags: ['\\Seen'] });
    expect(res.json.data.email.html).toBeDefined();

    res = await patch(uid, { action: 'flag' });
    expect(res.json.data.email.flags).toEqual(['\\Seen', '\\Flagged']);
    res = await patch(uid, { action: 'flag' });
    expect(res.json.data.email.flags).toEqual(['\\Seen', '\\Flagged']);

    res = await patch(uid, { action: 'unread' });
    expect(res.json.data.email.flags).toEqual(['\\Flagged']);
    res = await patch(uid, { action: 'unflag' });
    expect(res.json.data.email.flags).toEqual([]);

    expect((await read(uid)).json.data.email.flags).toEqual([]);
  });

  it('the unread filter and the folder counts follow read and unread', async () => {
    const uid = await deliver();
    const before = await folderCounts();
    await patch(uid, { action: 'read' });
    const after = await folderCounts();
    expect(after.INBOX).toEqual({ total: before.INBOX!.total, unread: before.INBOX!.unread - 1 });
    const unread = await server.api(`/emails?${acc}&unread=true`);
    expect(unread.json.data.emails.map((e: { uid: number }) => e.uid)).not.toContain(uid);
  });
});

describe('PATCH /emails/{id}: validation', () => {
  let uid: number;
  beforeAll(async () => {
    uid = await deliver();
  });

  it.each([
    ['an unknown action', { action: 'archive' }, 'action'],
    ['a missing action', {}, 'action'],
    ['an action of the wrong type', { action: 7 }, 'action'],
    ['move without folder', { action: 'move' }, 'folder'],
    ['move with an empty folder', { action: 'move', folder: '' }, 'folder'],
    ['folder with a non-move action', { action: 'read', folder: 'Trash' }, 'folder'],
  ])('%s is 400 validation_error naming the field', async (_name, body, field) => {
    const res = await patch(uid, body);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation_error');
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(field);
    expect((await read(uid)).json.data.email).toMatchObject({ folder: 'INBOX', flags: [] });
  });

  it('a non-integer id is 400 naming the id', async () => {
    const res = await patch('abc', { action: 'read' });
    expect(res.status).toBe(400);
    expect(res.json.error.details[0].path).toBe('path.id');
  });

  it('a missing account is 400 naming account', async () => {
    const res = await server.api(`/emails/${uid}`, { method: 'PATCH', body: { action: 'read' } });
    expect(res.status).toBe(400);
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain('account');
  });

  it('an unknown uid is 404; a uid outside the ?folder= given is 404 and changes nothing', async () => {
    expect((await patch(99_999, { action: 'read' })).status).toBe(404);
    const res = await patch(uid, { action: 'read' }, '&folder=Sent');
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
    expect((await read(uid)).json.data.email.flags).toEqual([]);
    expect((await patch(uid, { action: 'read' }, '&folder=inbox')).status).toBe(200);
  });
});

describe('PATCH /emails/{id}: move', () => {
  beforeAll(async () => {
    const res = await server.api(`/folders?${acc}`, { body: { name: 'Projects' } });
    expect(res.status).toBe(201);
  });

  it('moves to another folder keeping the uid, and the counts follow', async () => {
    const uid = await deliver();
    const before = await folderCounts();
    const res = await patch(uid, { action: 'move', folder: 'projects' });
    expect(res.status).toBe(200);
    expect(res.json.data.email).toMatchObject({ uid, folder: 'Projects' });
    const after = await folderCounts();
    expect(after.INBOX).toEqual({ total: before.INBOX!.total - 1, unread: before.INBOX!.unread - 1 });
    expect(after.Projects).toEqual({
      total: before.Projects!.total + 1,
      unread: before.Projects!.unread + 1,
    });

    expect((await read(uid, 'Projects')).json.data.email.uid).toBe(uid);
    expect((await read(uid, 'INBOX')).status).toBe(404);
    const listed = await server.api(`/emails?${acc}&folder=Projects`);
    expect(listed.json.data.emails.map((e: { uid: number }) => e.uid)).toContain(uid);
  });

  it('moving to a folder that does not exist is 404 and leaves the email where it was', async () => {
    const uid = await deliver();
    const res = await patch(uid, { action: 'move', folder: 'Nowhere' });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
    expect((await read(uid)).json.data.email.folder).toBe('INBOX');
  });

  it('moving into Drafts or out of it is refused with 400', async () => {
    const uid = await deliver();
    const into = await patch(uid, { action: 'move', folder: 'Drafts' });
    expect(into.status).toBe(400);
    expect(into.json.error.details[0].path).toBe('folder');
    expect(into.json.error.message).toMatch(/drafts/i);

    // A draft, put in place through the store (the drafts routes are another feature's).
    const deps = server.mailroom.deps;
    const inbox = (await deps.store.inboxes.findByAddress(server.inbox))!;
    const row = (await deps.store.messages.getByUid(inbox.id, uid))!;
    await deps.store.messages.moveTo(row.id, (await deps.store.folders.find(inbox.id, 'Drafts'))!.id, null);
    const out = await patch(uid, { action: 'move', folder: 'INBOX' });
    expect(out.status).toBe(400);
    expect((await read(uid, 'Drafts')).json.data.email.folder).toBe('Drafts');
  });

  it('a move to Trash and back keeps the uid; Trash shows it meanwhile', async () => {
    const uid = await deliver();
    const trashed = await patch(uid, { action: 'move', folder: 'Trash' });
    expect(trashed.json.data.email).toMatchObject({ uid, folder: 'Trash' });
    const inTrash = await server.api(`/emails?${acc}&folder=Trash`);
    expect(inTrash.json.data.emails.map((e: { uid: number }) => e.uid)).toContain(uid);
    const back = await patch(uid, { action: 'move', folder: 'INBOX' }, '&folder=Trash');
    expect(back.json.data.email).toMatchObject({ uid, folder: 'INBOX' });
    expect((await read(uid)).json.data.email.uid).toBe(uid);
  });
});

describe('DELETE /emails/{id}', () => {
  const del = (uid: number | string, query = '', key?: string) =>
    server.api(`/emails/${uid}?${acc}${query}`, { method: 'DELETE', key });

  it('moves to Trash keeping the uid, then deletes for good from Trash', async () => {
    const uid = await deliver();
    const before = await folderCounts();
    let res = await del(uid);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, data: { uid, deleted: false, folder: 'Trash' } });
    const after = await folderCounts();
    expect(after.INBOX!.total).toBe(before.INBOX!.total - 1);
    expect(after.Trash).toEqual({ total: before.Trash!.total + 1, unread: before.Trash!.unread + 1 });
    expect((await read(uid, 'Trash')).json.data.email).toMatchObject({ uid, folder: 'Trash' });

    res = await del(uid);
    expect(res.json).toEqual({ success: true, data: { uid, deleted: true, folder: null } });
    expect((await read(uid, 'Trash')).status).toBe(404);
    expect((await server.api(`/emails/${uid}/raw?${acc}`)).status).toBe(404);
    expect((await folderCounts()).Trash!.total).toBe(before.Trash!.total);
    expect((await del(uid)).status).toBe(404);
  });

  it('permanent=true deletes for good at once, and full-text search no longer finds it', async () => {
    const uid = await deliver('Quarterly zanzibar report');
    expect((await server.api(`/emails?${acc}&q=zanzibar`)).json.data.emails).toHaveLength(1);
    const res = await del(uid, '&permanent=true');
    expect(res.json.data).toEqual({ uid, deleted: true, folder: null });
    expect((await read(uid)).status).toBe(404);
    expect((await server.api(`/emails?${acc}&folder=Trash&q=zanzibar`)).json.data.emails).toHaveLength(0);
  });

  it('deleting a draft deletes it for good (a discarded draft does not go to Trash)', async () => {
    const uid = await deliver();
    const deps = server.mailroom.deps;
    const inbox = (await deps.store.inboxes.findByAddress(server.inbox))!;
    const row = (await deps.store.messages.getByUid(inbox.id, uid))!;
    await deps.store.messages.moveTo(row.id, (await deps.store.folders.find(inbox.id, 'Drafts'))!.id, null);
    const res = await del(uid);
    expect(res.json.data).toEqual({ uid, deleted: true, folder: null });
    expect((await read(uid, 'Trash')).status).toBe(404);
  });

  it('a uid that is not there, or not in the ?folder= given, is 404 and nothing changes', async () => {
    expect((await del(99_999)).status).toBe(404);
    const uid = await deliver();
    const res = await del(uid, '&folder=Trash');
    expect(res.status).toBe(404);
    expect((await read(uid)).json.data.email.folder).toBe('INBOX');
    expect((await del('1.5')).status).toBe(400);
  });
});

describe("another user's key", () => {
  it('gets 403 on PATCH and DELETE of this inbox, and nothing changes', async () => {
    const uid = await deliver();
    for (const res of [
      await patch(uid, { action: 'read' }, '', stranger.key),
      await patch(uid, { action: 'move', folder: 'Trash' }, '', stranger.key),
      await server.api(`/emails/${uid}?${acc}`, { method: 'DELETE', key: stranger.key }),
      await server.api(`/emails/${uid}?${acc}&permanent=true`, { method: 'DELETE', key: stranger.key }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.json.error.code).toBe('forbidden');
    }
    expect((await read(uid)).json.data.email).toMatchObject({ uid, folder: 'INBOX', flags: [] });
  });

  it('cannot reach this inbox by naming its own account either (uids are per inbox)', async () => {
    const uid = await deliver();
    const res = await server.api(`/emails/${uid}?account=${stranger.inbox}`, {
      method: 'DELETE',
      key: stranger.key,
    });
    expect(res.status).toBe(404);
    expect((await read(uid)).json.data.email.folder).toBe('INBOX');
  });
});

describe('the OpenAPI document', () => {
  it('describes the organise routes', async () => {
    const doc = (await server.api('/openapi.json', { key: null })).json;
    expect(Object.keys(doc.paths['/emails/{id}'])).toEqual(expect.arrayContaining(['patch', 'delete']));
    const body = doc.paths['/emails/{id}'].patch.requestBody.content['application/json'].schema;
    expect(body.properties.action.enum).toEqual(['read', 'unread', 'flag', 'unflag', 'move']);
    const query = doc.paths['/emails/{id}'].delete.parameters.map((p: { name: string }) => p.name);
    expect(query).toEqual(expect.arrayContaining(['id', 'account', 'folder', 'permanent']));
  });
});
