import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { Forbidden, NotFound, ValidationFailed } from '../../src/mailbox/errors.js';
import { createFolder } from '../../src/mailbox/organising/folders.js';
import { deleteEmail, updateEmail } from '../../src/mailbox/organising/organise.js';
import type { EmailChange } from '../../src/mailbox/organising/organise.js';
import { listEmails, listFolders, readEmail, readRaw } from '../../src/mailbox/reading/read.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess, Who } from '../helpers/in-process.js';

// The HTTP door's own part (validation of the body and path, status codes) is test/e2e/organise.test.ts.
let box: InProcess;
let account: string;
let stranger: { address: string; who: Who };

beforeAll(async () => {
  box = await inProcessInbox('organiser@mailroom.test');
  account = box.inbox.address;
  await createFolder(box.deps, box.who, account, 'Projects');
  const other = await box.addInbox('stranger@mailroom.test', 'stranger');
  stranger = { address: other.inbox.address, who: other.who };
});
afterAll(async () => box?.close());

let counter = 0;
/** Delivers a fresh mail and answers its uid. */
async function deliver(subject = `Message ${++counter}`): Promise<number> {
  const [filed] = await box.deliver({
    from: 'Alice <alice@example.com>',
    to: account,
    subject,
    text: `About ${subject}`,
  });
  return filed!.uid;
}

const update = (uid: number, change: EmailChange, folder?: string, who = box.who) =>
  updateEmail(box.deps, who, { account, uid, ...(folder ? { folder } : {}) }, change);
const remove = (uid: number, options: { folder?: string; permanent?: boolean } = {}, who = box.who) =>
  deleteEmail(
    box.deps,
    who,
    { account, uid, ...(options.folder ? { folder: options.folder } : {}) },
    options,
  );
const read = (uid: number, folder?: string) => readEmail(box.deps, box.who, account, uid, folder);
const list = async (query: Record<string, unknown>) =>
  (await listEmails(box.deps, box.who, ListEmailsQuery.parse({ account, limit: 100, ...query }))).emails;
const counts = async () =>
  Object.fromEntries(
    (await listFolders(box.deps, box.who, account)).map((f) => [
      f.name,
      { total: f.total, unread: f.unread },
    ]),
  );

/** Puts a message in Drafts through the store (the drafts verbs are another file's). */
async function makeDraft(uid: number) {
  const { store } = box.deps;
  const row = (await store.messages.getByUid(box.inbox.id, uid))!;
  await store.messages.moveTo(row.id, (await store.folders.find(box.inbox.id, 'Drafts'))!.id, null);
}

describe('read, unread, flag, unflag', () => {
  it('read and unread set and clear \\Seen; flag and unflag set and clear \\Flagged', async () => {
    const uid = await deliver();
    const seen = await update(uid, { action: 'read' });
    expect(seen).toMatchObject({ uid, folder: 'INBOX', flags: ['\\Seen'] });
    expect(seen.html).toBeDefined();
    expect((await update(uid, { action: 'flag' })).flags).toEqual(['\\Seen', '\\Flagged']);
    expect((await update(uid, { action: 'flag' })).flags).toEqual(['\\Seen', '\\Flagged']);
    expect((await update(uid, { action: 'unread' })).flags).toEqual(['\\Flagged']);
    expect((await update(uid, { action: 'unflag' })).flags).toEqual([]);
    expect((await read(uid)).flags).toEqual([]);
  });

  it('the unread filter and the folder counts follow read and unread', async () => {
    const uid = await deliver();
    const before = await counts();
    await update(uid, { action: 'read' });
    const after = await counts();
    expect(after.INBOX).toEqual({ total: before.INBOX!.total, unread: before.INBOX!.unread - 1 });
    expect((await list({ unread: 'true' })).map((e) => e.uid)).not.toContain(uid);
  });

  it('an unknown uid, or one outside the folder given, is not found and changes nothing', async () => {
    const uid = await deliver();
    expect(await refusal(update(99_999, { action: 'read' }))).toBeInstanceOf(NotFound);
    expect(await refusal(update(uid, { action: 'read' }, 'Sent'))).toBeInstanceOf(NotFound);
    expect((await read(uid)).flags).toEqual([]);
    expect((await update(uid, { action: 'read' }, 'inbox')).flags).toEqual(['\\Seen']);
  });
});

describe('move', () => {
  it('moves to another folder keeping the uid, and the counts follow', async () => {
    const uid = await deliver();
    const before = await counts();
    expect(await update(uid, { action: 'move', folder: 'projects' })).toMatchObject({
      uid,
      folder: 'Projects',
    });
    const after = await counts();
    expect(after.INBOX).toEqual({ total: before.INBOX!.total - 1, unread: before.INBOX!.unread - 1 });
    expect(after.Projects).toEqual({
      total: before.Projects!.total + 1,
      unread: before.Projects!.unread + 1,
    });
    expect((await read(uid, 'Projects')).uid).toBe(uid);
    expect(await refusal(read(uid, 'INBOX'))).toBeInstanceOf(NotFound);
    expect((await list({ folder: 'Projects' })).map((e) => e.uid)).toContain(uid);
  });

  it('a move without a folder or to one that does not exist is refused and leaves the email where it was', async () => {
    const uid = await deliver();
    expect(await refusal(update(uid, { action: 'move' }))).toMatchObject({ details: [{ path: 'folder' }] });
    expect(await refusal(update(uid, { action: 'move', folder: 'Nowhere' }))).toBeInstanceOf(NotFound);
    expect((await read(uid)).folder).toBe('INBOX');
  });

  it('moving into Drafts or out of it is refused, naming the folder', async () => {
    const uid = await deliver();
    const into = await refusal(update(uid, { action: 'move', folder: 'Drafts' }));
    expect(into).toBeInstanceOf(ValidationFailed);
    expect(into).toMatchObject({ details: [{ path: 'folder' }], message: expect.stringMatching(/drafts/i) });
    await makeDraft(uid);
    expect(await refusal(update(uid, { action: 'move', folder: 'INBOX' }))).toBeInstanceOf(ValidationFailed);
    expect((await read(uid, 'Drafts')).folder).toBe('Drafts');
  });

  it('a move to Trash and back keeps the uid; Trash shows it meanwhile', async () => {
    const uid = await deliver();
    expect(await update(uid, { action: 'move', folder: 'Trash' })).toMatchObject({ uid, folder: 'Trash' });
    expect((await list({ folder: 'Trash' })).map((e) => e.uid)).toContain(uid);
    expect(await update(uid, { action: 'move', folder: 'INBOX' }, 'Trash')).toMatchObject({
      uid,
      folder: 'INBOX',
    });
    expect((await read(uid)).uid).toBe(uid);
  });
});

describe('delete', () => {
  it('moves to Trash keeping the uid, then deletes for good from Trash', async () => {
    const uid = await deliver();
    const before = await counts();
    expect(await remove(uid)).toEqual({ uid, deleted: false, folder: 'Trash' });
    const after = await counts();
    expect(after.INBOX!.total).toBe(before.INBOX!.total - 1);
    expect(after.Trash).toEqual({ total: before.Trash!.total + 1, unread: before.Trash!.unread + 1 });
    expect(await read(uid, 'Trash')).toMatchObject({ uid, folder: 'Trash' });

    expect(await remove(uid)).toEqual({ uid, deleted: true, folder: null });
    expect(await refusal(read(uid, 'Trash'))).toBeInstanceOf(NotFound);
    expect(await refusal(readRaw(box.deps, box.who, account, uid))).toBeInstanceOf(NotFound);
    expect((await counts()).Trash!.total).toBe(before.Trash!.total);
    expect(await refusal(remove(uid))).toBeInstanceOf(NotFound);
  });

  it('permanent deletes for good at once, and full-text search no longer finds it', async () => {
    const uid = await deliver('Quarterly zanzibar report');
    expect(await list({ q: 'zanzibar' })).toHaveLength(1);
    expect(await remove(uid, { permanent: true })).toEqual({ uid, deleted: true, folder: null });
    expect(await refusal(read(uid))).toBeInstanceOf(NotFound);
    expect(await list({ folder: 'Trash', q: 'zanzibar' })).toHaveLength(0);
  });

  it('deleting a draft deletes it for good (a discarded draft does not go to Trash)', async () => {
    const uid = await deliver();
    await makeDraft(uid);
    expect(await remove(uid)).toEqual({ uid, deleted: true, folder: null });
    expect(await refusal(read(uid, 'Trash'))).toBeInstanceOf(NotFound);
  });

  it('a uid that is not there, or not in the folder given, is not found and nothing changes', async () => {
    expect(await refusal(remove(99_999))).toBeInstanceOf(NotFound);
    const uid = await deliver();
    expect(await refusal(remove(uid, { folder: 'Trash' }))).toBeInstanceOf(NotFound);
    expect((await read(uid)).folder).toBe('INBOX');
  });
});

describe('another user', () => {
  it('is refused changes and deletes of this inbox, and nothing changes', async () => {
    const uid = await deliver();
    for (const attempt of [
      () => update(uid, { action: 'read' }, undefined, stranger.who),
      () => update(uid, { action: 'move', folder: 'Trash' }, undefined, stranger.who),
      () => remove(uid, {}, stranger.who),
      () => remove(uid, { permanent: true }, stranger.who),
    ])
      expect(await refusal(attempt())).toBeInstanceOf(Forbidden);
    expect(await read(uid)).toMatchObject({ uid, folder: 'INBOX', flags: [] });
  });

  it('cannot reach this inbox by naming its own account either (uids are per inbox)', async () => {
    const uid = await deliver();
    const theirs = deleteEmail(box.deps, stranger.who, { account: stranger.address, uid });
    expect(await refusal(theirs)).toBeInstanceOf(NotFound);
    expect((await read(uid)).folder).toBe('INBOX');
  });
});
