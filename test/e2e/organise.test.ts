// Engines: SQLite only: PATCH and DELETE /emails/{id} as HTTP (the body's and path's validation, status codes, the answer's shape); what read, flag, move and delete do to the data is test/mailbox/organise.test.ts, on both engines.
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

describe('PATCH /emails/{id}', () => {
  it('answers the email as it is afterwards, in full', async () => {
    const uid = await deliver();
    const res = await patch(uid, { action: 'read' });
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
    expect(res.json.data.email).toMatchObject({ uid, folder: 'INBOX', flags: ['\\Seen'] });
    expect(res.json.data.email.html).toBeDefined();
    expect((await read(uid)).json.data.email.flags).toEqual(['\\Seen']);
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
  it('moves to a folder named in any case, answering where it is now', async () => {
    expect((await server.api(`/folders?${acc}`, { body: { name: 'Projects' } })).status).toBe(201);
    const uid = await deliver();
    const res = await patch(uid, { action: 'move', folder: 'projects' });
    expect(res.status).toBe(200);
    expect(res.json.data.email).toMatchObject({ uid, folder: 'Projects' });
  });

  it('moving to a folder that does not exist is 404 and leaves the email where it was', async () => {
    const uid = await deliver();
    const res = await patch(uid, { action: 'move', folder: 'Nowhere' });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
    expect((await read(uid)).json.data.email.folder).toBe('INBOX');
  });

  it('moving into Drafts is refused with 400 naming the folder', async () => {
    const uid = await deliver();
    const into = await patch(uid, { action: 'move', folder: 'Drafts' });
    expect(into.status).toBe(400);
    expect(into.json.error.details[0].path).toBe('folder');
    expect(into.json.error.message).toMatch(/drafts/i);
  });
});

describe('DELETE /emails/{id}', () => {
  const del = (uid: number | string, query = '', key?: string) =>
    server.api(`/emails/${uid}?${acc}${query}`, { method: 'DELETE', key });

  it('answers where the email went, then that it is gone for good, then 404', async () => {
    const uid = await deliver();
    let res = await del(uid);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, data: { uid, deleted: false, folder: 'Trash' } });
    res = await del(uid);
    expect(res.json).toEqual({ success: true, data: { uid, deleted: true, folder: null } });
    expect((await server.api(`/emails/${uid}/raw?${acc}`)).status).toBe(404);
    expect((await del(uid)).status).toBe(404);
  });

  it('permanent=true deletes for good at once', async () => {
    const uid = await deliver();
    const res = await del(uid, '&permanent=true');
    expect(res.json.data).toEqual({ uid, deleted: true, folder: null });
    expect((await read(uid)).status).toBe(404);
  });

  it('a uid not in the ?folder= given is 404, and an id that is no integer 400', async () => {
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
