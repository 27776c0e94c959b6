// Engines: SQLite only: the label routes as HTTP (the body's validation, status codes, the answers); what labels do to the data is test/mailbox/labels.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const PALETTE = [
  '#6366f1',
  '#8b5cf6',
  '#a855f7',
  '#d946ef',
  '#ec4899',
  '#ef4444',
  '#f97316',
  '#f59e0b',
  '#22c55e',
  '#0ea5e9',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: TestServer;
let acc: string;
let other: { key: string; inbox: string };

beforeAll(async () => {
  server = await startServer();
  acc = `account=${encodeURIComponent(server.inbox)}`;
  other = await server.addUser('other');
});
afterAll(async () => server.stop());

const createLabel = (body: unknown, key?: string | null) => server.api('/labels', { body, key });
const paths = (res: { json: { error: { details: { path: string }[] } } }) =>
  res.json.error.details.map((d) => d.path);

let counter = 0;
async function deliver(): Promise<number> {
  const subject = `Labelled ${++counter}`;
  await server.sendMail({ from: 'bob@example.com', to: server.inbox, subject, text: 'hello' });
  const list = await server.api(`/emails?${acc}&subject=${encodeURIComponent(subject)}`);
  return list.json.data.emails[0].uid;
}

describe('POST /labels', () => {
  it('creates a label: 201, the success message, a UUID, a UTC timestamp', async () => {
    const res = await createLabel({ name: 'Invoices', color: '#A1B2C3', description: 'bills to pay' });
    expect(res.status).toBe(201);
    expect(res.json.success).toBe(true);
    expect(res.json.message).toBe('Label created successfully');
    const label = res.json.data.label;
    expect(label).toMatchObject({ name: 'Invoices', color: '#a1b2c3', description: 'bills to pay' });
    expect(label.id).toMatch(UUID);
    expect(label.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('picks a palette colour when color is omitted; description defaults to null', async () => {
    const res = await createLabel({ name: 'No colour' });
    expect(res.status).toBe(201);
    expect(PALETTE).toContain(res.json.data.label.color);
    expect(res.json.data.label.description).toBeNull();
  });

  it.each([
    ['0 characters', ''],
    ['only spaces', '   '],
    ['51 characters', 'x'.repeat(51)],
    ['a control character', 'tab\there'],
  ])('a name of %s is 400 validation_error on name', async (_what, name) => {
    const res = await createLabel({ name });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation_error');
    expect(paths(res)).toEqual(['name']);
  });

  it('a missing or non-string name is 400 on name', async () => {
    for (const body of [{}, { name: 42 }, { color: '#112233' }]) {
      const res = await createLabel(body);
      expect(res.status).toBe(400);
      expect(paths(res)).toContain('name');
    }
  });

  it.each([
    ['1 character', 'a'],
    ['50 characters', 'y'.repeat(50)],
    ['50 emoji (characters, not UTF-16 units)', '🏷'.repeat(50)],
  ])('a name of %s is accepted', async (_what, name) => {
    const res = await createLabel({ name });
    expect(res.status).toBe(201);
    expect(res.json.data.label.name).toBe(name);
  });

  it('surrounding spaces are trimmed away', async () => {
    const res = await createLabel({ name: '  Padded  ' });
    expect(res.json.data.label.name).toBe('Padded');
  });

  it.each(['#abc', '#GGGGGG', 'red', '112233', '#1122334', ''])('color %j is 400 on color', async (color) => {
    const res = await createLabel({ name: `Colour ${color}`, color });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation_error');
    expect(paths(res)).toEqual(['color']);
  });

  it('a description over 1000 characters is 400 on description', async () => {
    const res = await createLabel({ name: 'Long', description: 'd'.repeat(1001) });
    expect(res.status).toBe(400);
    expect(paths(res)).toEqual(['description']);
  });

  it('the same name in another case is 409 conflict; another user may use it', async () => {
    expect((await createLabel({ name: 'Urgent' })).status).toBe(201);
    for (const name of ['urgent', 'URGENT', ' Urgent ']) {
      const res = await createLabel({ name });
      expect(res.status).toBe(409);
      expect(res.json.error.code).toBe('conflict');
    }
    const theirs = await createLabel({ name: 'urgent' }, other.key);
    expect(theirs.status).toBe(201);
  });

  it('without a key is 401', async () => {
    expect((await createLabel({ name: 'Anon' }, null)).status).toBe(401);
  });
});

describe('GET, PATCH, DELETE /labels/{id}', () => {
  it('lists only your labels, newest first, paged by cursor', async () => {
    const mine = (await server.api('/labels?limit=100')).json.data;
    expect(mine.nextCursor).toBeNull();
    const names = mine.labels.map((l: { name: string }) => l.name);
    expect(names).toContain('Invoices');
    expect(names.indexOf('Urgent')).toBeLessThan(names.indexOf('Invoices'));
    const theirs = (await server.api('/labels', { key: other.key })).json.data.labels;
    expect(theirs.map((l: { name: string }) => l.name)).toEqual(['urgent']);

    const first = (await server.api('/labels?limit=2')).json.data;
    expect(first.labels).toHaveLength(2);
    const second = (await server.api(`/labels?limit=2&cursor=${first.nextCursor}`)).json.data;
    expect(second.labels[0].id).toBe(mine.labels[2].id);
    expect((await server.api('/labels?cursor=bogus')).status).toBe(400);
  });

  it('reads one label by id or by name; unknown and foreign labels are 404', async () => {
    const created = (await createLabel({ name: 'Readable' })).json.data.label;
    expect((await server.api(`/labels/${created.id}`)).json.data.label).toEqual(created);
    expect((await server.api('/labels/readable')).json.data.label.id).toBe(created.id);
    expect((await server.api('/labels/no-such-label')).status).toBe(404);
    const foreign = await server.api(`/labels/${created.id}`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('not_found');
  });

  it('PATCH changes the fields given and keeps the rest; a taken name is 409', async () => {
    const label = (await createLabel({ name: 'Draftish', color: '#000000', description: 'x' })).json.data
      .label;
    let res = await server.api(`/labels/${label.id}`, { method: 'PATCH', body: { name: 'Drafty' } });
    expect(res.status).toBe(200);
    expect(res.json.data.label).toMatchObject({
      id: label.id,
      name: 'Drafty',
      color: '#000000',
      description: 'x',
    });
    expect(res.json.data.label.created_at).toBe(label.created_at);

    res = await server.api(`/labels/${label.id}`, {
      method: 'PATCH',
      body: { name: 'DRAFTY', color: '#FFFFFF' },
    });
    expect(res.json.data.label).toMatchObject({ name: 'DRAFTY', color: '#ffffff' });
    res = await server.api(`/labels/${label.id}`, { method: 'PATCH', body: { description: null } });
    expect(res.json.data.label.description).toBeNull();

    res = await server.api(`/labels/${label.id}`, { method: 'PATCH', body: { name: 'invoices' } });
    expect(res.status).toBe(409);
    expect((await server.api(`/labels/${label.id}`)).json.data.label.name).toBe('DRAFTY');
  });

  it('PATCH validates like create', async () => {
    const { id } = (await createLabel({ name: 'Strict' })).json.data.label;
    for (const [body, field] of [
      [{ name: '' }, 'name'],
      [{ name: 'z'.repeat(51) }, 'name'],
      [{ color: '#abc' }, 'color'],
      [{ color: 'red' }, 'color'],
      [{}, '(body)'],
    ] as const) {
      const res = await server.api(`/labels/${id}`, { method: 'PATCH', body });
      expect(res.status).toBe(400);
      expect(paths(res)).toContain(field);
    }
    expect((await server.api(`/labels/${id}`)).json.data.label.name).toBe('Strict');
  });

  it('another user cannot change or delete your label (404), and it stays as it was', async () => {
    const label = (await createLabel({ name: 'Mine only', color: '#123456' })).json.data.label;
    const patched = await server.api(`/labels/${label.id}`, {
      method: 'PATCH',
      body: { name: 'Stolen' },
      key: other.key,
    });
    expect(patched.status).toBe(404);
    const deleted = await server.api(`/labels/${label.id}`, { method: 'DELETE', key: other.key });
    expect(deleted.status).toBe(404);
    expect((await server.api(`/labels/${label.id}`)).json.data.label).toEqual(label);
  });

  it('DELETE removes the label and takes it off every email', async () => {
    const label = (await createLabel({ name: 'Doomed' })).json.data.label;
    const uid = await deliver();
    await server.api(`/emails/${uid}/labels?${acc}`, { body: { labels: [label.id] } });
    const res = await server.api(`/labels/${label.id}`, { method: 'DELETE' });
    expect(res.json).toEqual({ success: true, data: { id: label.id, deleted: true } });
    expect((await server.api(`/labels/${label.id}`)).status).toBe(404);
    expect((await server.api(`/emails/${uid}?${acc}`)).json.data.email.labels).toEqual([]);
    expect((await server.api(`/labels/${label.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await createLabel({ name: 'Doomed' })).status).toBe(201);
  });
});

describe('labels on emails', () => {
  let work: { id: string; name: string; color: string };
  let home: { id: string; name: string; color: string };
  beforeAll(async () => {
    work = (await createLabel({ name: 'Work', color: '#22c55e' })).json.data.label;
    home = (await createLabel({ name: 'Home', color: '#0ea5e9' })).json.data.label;
  });

  it('applies labels by id or name, idempotently; every Email shows them', async () => {
    const uid = await deliver();
    let res = await server.api(`/emails/${uid}/labels?${acc}`, { body: { labels: [work.id, 'home'] } });
    expect(res.status).toBe(200);
    const refs = [
      { id: home.id, name: 'Home', color: '#0ea5e9' },
      { id: work.id, name: 'Work', color: '#22c55e' },
    ];
    expect(res.json.data.email.labels).toEqual(refs);
    res = await server.api(`/emails/${uid}/labels?${acc}`, { body: { labels: ['WORK', work.id] } });
    expect(res.json.data.email.labels).toEqual(refs);

    expect((await server.api(`/emails/${uid}?${acc}`)).json.data.email.labels).toEqual(refs);
    const listed = (await server.api(`/emails?${acc}`)).json.data.emails.find(
      (e: { uid: number }) => e.uid === uid,
    );
    expect(listed.labels).toEqual(refs);
  });

  it('the label filter of the list finds labelled mail by id or by name', async () => {
    const tagged = await deliver();
    const untagged = await deliver();
    await server.api(`/emails/${tagged}/labels?${acc}`, { body: { labels: ['Work'] } });
    for (const label of [work.id, 'work', 'Work']) {
      const uids = (
        await server.api(`/emails?${acc}&label=${encodeURIComponent(label)}`)
      ).json.data.emails.map((e: { uid: number }) => e.uid);
      expect(uids).toContain(tagged);
      expect(uids).not.toContain(untagged);
    }
    // Issue 11: an unknown label is 404, as an unknown folder, not an empty page.
    const none = await server.api(`/emails?${acc}&label=no-such-label`);
    expect(none.status).toBe(404);
  });

  it('an unknown label is 404 naming it, and no label is applied', async () => {
    const uid = await deliver();
    const res = await server.api(`/emails/${uid}/labels?${acc}`, { body: { labels: ['Work', 'Nope'] } });
    expect(res.status).toBe(404);
    expect(res.json.error.message).toContain('Nope');
    expect((await server.api(`/emails/${uid}?${acc}`)).json.data.email.labels).toEqual([]);
  });

  it('validates the labels list', async () => {
    const uid = await deliver();
    for (const body of [{}, { labels: [] }, { labels: 'Work' }, { labels: [''] }]) {
      const res = await server.api(`/emails/${uid}/labels?${acc}`, { body });
      expect(res.status).toBe(400);
      expect(paths(res).some((p: string) => p.startsWith('labels'))).toBe(true);
    }
  });

  it('DELETE /emails/{id}/labels/{labelId} takes one label off, by id or name', async () => {
    const uid = await deliver();
    await server.api(`/emails/${uid}/labels?${acc}`, { body: { labels: ['Work', 'Home'] } });
    let res = await server.api(`/emails/${uid}/labels/${work.id}?${acc}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.json.data.email.labels.map((l: { name: string }) => l.name)).toEqual(['Home']);
    res = await server.api(`/emails/${uid}/labels/home?${acc}`, { method: 'DELETE' });
    expect(res.json.data.email.labels).toEqual([]);
    res = await server.api(`/emails/${uid}/labels/home?${acc}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect((await server.api(`/emails/${uid}/labels/nope?${acc}`, { method: 'DELETE' })).status).toBe(404);
    expect((await server.api(`/emails/99999/labels/home?${acc}`, { method: 'DELETE' })).status).toBe(404);
  });

  it("another user's key is 403 on this inbox's emails, and nothing changes", async () => {
    const uid = await deliver();
    await server.api(`/emails/${uid}/labels?${acc}`, { body: { labels: ['Work'] } });
    const apply = await server.api(`/emails/${uid}/labels?${acc}`, {
      body: { labels: ['urgent'] },
      key: other.key,
    });
    expect(apply.status).toBe(403);
    const remove = await server.api(`/emails/${uid}/labels/${work.id}?${acc}`, {
      method: 'DELETE',
      key: other.key,
    });
    expect(remove.status).toBe(403);
    const email = (await server.api(`/emails/${uid}?${acc}`)).json.data.email;
    expect(email.labels.map((l: { name: string }) => l.name)).toEqual(['Work']);
  });

  it("a user cannot put someone else's label on their own mail (404)", async () => {
    await server.sendMail({ from: 'bob@example.com', to: other.inbox, subject: 'For other', text: 'hi' });
    const theirs = `account=${encodeURIComponent(other.inbox)}`;
    const uid = (await server.api(`/emails?${theirs}`, { key: other.key })).json.data.emails[0].uid;
    const res = await server.api(`/emails/${uid}/labels?${theirs}`, {
      body: { labels: [work.id] },
      key: other.key,
    });
    expect(res.status).toBe(404);
    const ok = await server.api(`/emails/${uid}/labels?${theirs}`, {
      body: { labels: ['urgent'] },
      key: other.key,
    });
    expect(ok.json.data.email.labels.map((l: { name: string }) => l.name)).toEqual(['urgent']);
  });
});

describe('the OpenAPI document', () => {
  it('describes the label routes and the label rules', async () => {
    const doc = (await server.api('/openapi.json', { key: null })).json;
    expect(Object.keys(doc.paths['/labels'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(doc.paths['/labels/{id}'])).toEqual(
      expect.arrayContaining(['get', 'patch', 'delete']),
    );
    expect(doc.paths['/emails/{id}/labels'].post).toBeDefined();
    expect(doc.paths['/emails/{id}/labels/{labelId}'].delete).toBeDefined();
    const body = doc.paths['/labels'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['name']);
    expect(body.properties.name).toMatchObject({ minLength: 1, maxLength: 50 });
    expect(doc.paths['/labels'].post.responses['409']).toBeDefined();
  });
});
