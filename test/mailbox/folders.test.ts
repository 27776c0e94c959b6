import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { Conflict, Forbidden, NotFound, ValidationFailed } from '../../src/mailbox/errors.js';
import { createFolder, deleteFolder } from '../../src/mailbox/organising/folders.js';
import { deleteEmail, updateEmail } from '../../src/mailbox/organising/organise.js';
import type { EmailChange } from '../../src/mailbox/organising/organise.js';
import { listEmails, listFolders, readEmail } from '../../src/mailbox/reading/read.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess, Who } from '../helpers/in-process.js';

// The HTTP door's own part (status codes, the body's validation, the path) is test/e2e/folders.test.ts.
let box: InProcess;
let account: string;
let other: { address: string; who: Who };

beforeAll(async () => {
  box = await inProcessInbox('folders@mailroom.test');
  account = box.inbox.address;
  const added = await box.addInbox('other@mailroom.test', 'other');
  other = { address: added.inbox.address, who: added.who };
});
afterAll(async () => box?.close());

const folders = async (who = box.who, address = account) =>
  new Map((await listFolders(box.deps, who, address)).map((f) => [f.name, f]));
const create = (name: string, who = box.who, address = account) => createFolder(box.deps, who, address, name);
const remove = (name: string, who = box.who) => deleteFolder(box.deps, who, account, name);
const update = (uid: number, change: EmailChange) => updateEmail(box.deps, box.who, { account, uid }, change);
const read = (uid: number, folder: string) => readEmail(box.deps, box.who, account, uid, folder);

let counter = 0;
async function deliver(): Promise<number> {
  const [filed] = await box.deliver({
    from: 'carol@example.com',
    to: account,
    subject: `Filed ${++counter}`,
    text: 'hello',
  });
  return filed!.uid;
}

describe('creating a folder', () => {
  it('makes a custom folder, listed with zero counts after the standard ones', async () => {
    expect(await create('Receipts')).toEqual({ name: 'Receipts', specialUse: null, total: 0, unread: 0 });
    expect([...(await folders()).keys()]).toEqual([
      'INBOX',
      'Sent',
      'Drafts',
      'Trash',
      'Spam',
      'Outbox',
      'Receipts',
    ]);
  });

  it('refuses a name taken in any case, standard folders included', async () => {
    for (const name of ['receipts', 'RECEIPTS', 'inbox', 'trash', ' Sent '])
      expect(await refusal(create(name))).toBeInstanceOf(Conflict);
  });

  it.each([
    ['empty', ''],
    ['only spaces', '  '],
    ['101 characters', 'f'.repeat(101)],
    ['a slash', 'a/b'],
    ['a newline', 'two\nlines'],
    ['a dot', '.'],
    ['two dots', '..'],
    ['two dots with spaces', ' .. '],
    ['only dots', '...'],
  ])('refuses a name that is %s, naming the name', async (_what, name) => {
    const refused = await refusal(create(name));
    expect(refused).toBeInstanceOf(ValidationFailed);
    expect(refused).toMatchObject({ details: [{ path: 'name' }] });
  });

  it('accepts 1 and 100 characters, spaces and non-ASCII; trims the ends', async () => {
    await create('f');
    await create('g'.repeat(100));
    expect((await create('  Résumés 2026  ')).name).toBe('Résumés 2026');
    expect((await folders()).has('Résumés 2026')).toBe(true);
  });

  it('accepts dots beside other characters, at either end too', async () => {
    for (const name of ['.archive', 'v2.', 'a..b']) {
      expect((await create(name)).name).toBe(name);
      expect((await remove(name)).deleted).toBe(true);
    }
  });

  it('another user may use the same name in their inbox, but not create one in yours', async () => {
    expect((await create('Receipts', other.who, other.address)).name).toBe('Receipts');
    expect(await refusal(create('Intruder', other.who))).toBeInstanceOf(Forbidden);
    expect((await folders()).has('Intruder')).toBe(false);
  });
});

describe('folder counts', () => {
  it('follow arrivals, reads, moves and deletes', async () => {
    await create('Counted');
    const start = await folders();
    const [a, b, c] = [await deliver(), await deliver(), await deliver()];
    let now = await folders();
    expect(now.get('INBOX')).toMatchObject({
      total: start.get('INBOX')!.total + 3,
      unread: start.get('INBOX')!.unread + 3,
    });

    await update(a, { action: 'read' });
    await update(b, { action: 'move', folder: 'Counted' });
    await update(a, { action: 'move', folder: 'Counted' });
    await deleteEmail(box.deps, box.who, { account, uid: c });
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

    await update(b, { action: 'read' });
    expect((await folders()).get('Counted')).toMatchObject({ total: 2, unread: 0 });
  });
});

describe('deleting a folder', () => {
  it('deletes an empty custom folder named in any case; the name is free again', async () => {
    await create('Short lived');
    expect(await remove('short LIVED')).toEqual({ name: 'Short lived', deleted: true, movedToTrash: 0 });
    expect((await folders()).has('Short lived')).toBe(false);
    const listing = listEmails(box.deps, box.who, ListEmailsQuery.parse({ account, folder: 'Short lived' }));
    expect(await refusal(listing)).toBeInstanceOf(NotFound);
    expect((await create('Short lived')).name).toBe('Short lived');
  });

  it('moves the mail of a deleted folder to Trash, keeping uids and flags', async () => {
    await create('Old projects');
    const [x, y] = [await deliver(), await deliver()];
    await update(x, { action: 'move', folder: 'Old projects' });
    await update(y, { action: 'flag' });
    await update(y, { action: 'move', folder: 'Old projects' });
    const trashBefore = (await folders()).get('Trash')!.total;

    expect(await remove('Old projects')).toEqual({ name: 'Old projects', deleted: true, movedToTrash: 2 });
    expect((await folders()).has('Old projects')).toBe(false);
    expect((await folders()).get('Trash')!.total).toBe(trashBefore + 2);
    expect(await read(y, 'Trash')).toMatchObject({ uid: y, folder: 'Trash', flags: ['\\Flagged'] });
    expect((await read(x, 'Trash')).uid).toBe(x);
  });

  it('deletes a folder named ".." made before such names were refused, addressed with a space', async () => {
    await box.deps.store.folders.create(box.inbox.id, '..');
    const uid = await deliver();
    await update(uid, { action: 'move', folder: '..' });
    expect(await remove(' ..')).toEqual({ name: '..', deleted: true, movedToTrash: 1 });
    expect((await folders()).has('..')).toBe(false);
    expect((await read(uid, 'Trash')).uid).toBe(uid);
  });

  it('refuses to delete a standard folder, saying so', async () => {
    for (const name of ['INBOX', 'Sent', 'Drafts', 'Trash', 'spam', 'outbox']) {
      const refused = await refusal(remove(name));
      expect(refused).toBeInstanceOf(ValidationFailed);
      expect(refused).toMatchObject({
        message: expect.stringMatching(/standard folder/),
        details: [{ path: 'name' }],
      });
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

  it('finds no unknown folder', async () => {
    expect(await refusal(remove('Never made'))).toBeInstanceOf(NotFound);
  });

  it('refuses another user, and the folder and its mail stay', async () => {
    await create('Guarded');
    const uid = await deliver();
    await update(uid, { action: 'move', folder: 'Guarded' });
    expect(await refusal(remove('Guarded', other.who))).toBeInstanceOf(Forbidden);
    expect((await folders()).get('Guarded')).toMatchObject({ total: 1 });
    expect((await read(uid, 'Guarded')).uid).toBe(uid);
  });
});
