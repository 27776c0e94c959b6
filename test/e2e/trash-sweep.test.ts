import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTrashSweep } from '../../src/mailbox/organising/trash-sweep.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const DAY = 24 * 60 * 60 * 1000;

let server: TestServer;
let acc: string;

beforeAll(async () => {
  server = await startServer({ trashDays: 30 });
  acc = `account=${encodeURIComponent(server.inbox)}`;
});
afterAll(async () => server.stop());

let counter = 0;
async function deliver(): Promise<number> {
  const subject = `Sweepable ${++counter}`;
  await server.sendMail({ from: 'dave@example.com', to: server.inbox, subject, text: 'bye' });
  const list = await server.api(`/emails?${acc}&subject=${encodeURIComponent(subject)}`);
  return list.json.data.emails[0].uid;
}
const trash = (uid: number) => server.api(`/emails/${uid}?${acc}`, { method: 'DELETE' });
const where = async (uid: number): Promise<string | null> => {
  const res = await server.api(`/emails/${uid}/raw?${acc}`);
  if (res.status === 404) return null;
  for (const folder of ['INBOX', 'Trash', 'Archive']) {
    if ((await server.api(`/emails/${uid}?${acc}&folder=${folder}`)).status === 200) return folder;
  }
  return 'elsewhere';
};
/** A sweep that believes it is `days` days from now. */
const sweepAt = (days: number) =>
  createTrashSweep(server.mailroom.deps, { now: () => new Date(Date.now() + days * DAY) }).sweepOnce();

describe('the trash sweep', () => {
  it('deletes mail that has been in Trash longer than MAILROOM_TRASH_DAYS, counted from the move', async () => {
    const uid = await deliver();
    expect((await trash(uid)).json.data.folder).toBe('Trash');

    await sweepAt(29);
    expect(await where(uid)).toBe('Trash');
    await sweepAt(31);
    expect(await where(uid)).toBeNull();
  });

  it('counts from the move to Trash, not from arrival', async () => {
    const uid = await deliver();
    const deps = server.mailroom.deps;
    const inbox = (await deps.store.inboxes.findByAddress(server.inbox))!;
    const row = (await deps.store.messages.getByUid(inbox.id, uid))!;
    await deps.store.messages.update(row.id, { received_at: new Date(Date.now() - 90 * DAY).toISOString() });
    await trash(uid);
    await sweepAt(0);
    expect(await where(uid)).toBe('Trash');
  });

  it('never touches mail outside Trash, however old; moving out of Trash stops the clock', async () => {
    const kept = await deliver();
    const rescued = await deliver();
    await trash(rescued);
    await server.api(`/emails/${rescued}?${acc}`, {
      method: 'PATCH',
      body: { action: 'move', folder: 'INBOX' },
    });

    await sweepAt(365);
    expect(await where(kept)).toBe('INBOX');
    expect(await where(rescued)).toBe('INBOX');

    await trash(rescued);
    await sweepAt(29);
    expect(await where(rescued)).toBe('Trash');
  });

  it('mail of a deleted folder gets the full retention in Trash', async () => {
    await server.api(`/folders?${acc}`, { body: { name: 'Archive' } });
    const uid = await deliver();
    await server.api(`/emails/${uid}?${acc}`, {
      method: 'PATCH',
      body: { action: 'move', folder: 'Archive' },
    });
    await server.api(`/folders/Archive?${acc}`, { method: 'DELETE' });
    await sweepAt(29);
    expect(await where(uid)).toBe('Trash');
    await sweepAt(31);
    expect(await where(uid)).toBeNull();
  });

  it('takes labels, attachments and the search entry with the message', async () => {
    const subject = 'Kumquat invoice';
    await server.sendMail({
      from: 'dave@example.com',
      to: server.inbox,
      subject,
      text: 'see attached kumquat',
      attachments: [{ filename: 'a.txt', content: 'kumquat data' }],
    });
    const uid = (await server.api(`/emails?${acc}&q=kumquat`)).json.data.emails[0].uid;
    const label = (await server.api('/labels', { body: { name: 'Fruit' } })).json.data.label;
    await server.api(`/emails/${uid}/labels?${acc}`, { body: { labels: ['Fruit'] } });
    await trash(uid);
    expect((await server.api(`/emails?${acc}&folder=Trash&q=kumquat`)).json.data.emails).toHaveLength(1);

    await sweepAt(31);
    expect((await server.api(`/emails?${acc}&folder=Trash&q=kumquat`)).json.data.emails).toHaveLength(0);
    expect((await server.api(`/emails?${acc}&folder=Trash&label=Fruit`)).json.data.emails).toHaveLength(0);
    expect((await server.api(`/labels/${label.id}`)).status).toBe(200);
    const db = server.mailroom.deps.store.db;
    expect(await db.rawFirst('SELECT count(*) AS n FROM attachments')).toEqual({ n: 0 });
    expect(await db.rawFirst('SELECT count(*) AS n FROM message_labels')).toEqual({ n: 0 });
  });

  it('runs at start: a server restarted with old mail in Trash empties it', async () => {
    const old = await deliver();
    const fresh = await deliver();
    await trash(old);
    await trash(fresh);
    const deps = server.mailroom.deps;
    const inbox = (await deps.store.inboxes.findByAddress(server.inbox))!;
    const row = (await deps.store.messages.getByUid(inbox.id, old))!;
    await deps.store.messages.update(row.id, { trashed_at: new Date(Date.now() - 31 * DAY).toISOString() });

    await server.restart();
    await eventually(async () => (await where(old)) === null);
    expect(await where(fresh)).toBe('Trash');
  });
});
