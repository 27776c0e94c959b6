import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { Forbidden, NotFound } from '../../src/mailbox/errors.js';
import { emptyFolder } from '../../src/mailbox/organising/empty-folder.js';
import { createFolder } from '../../src/mailbox/organising/folders.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

// The HTTP door's own part (DELETE /emails's query, status codes) is test/e2e/empty-folder.test.ts.
let box: InProcess;
let account: string;

beforeAll(async () => {
  box = await inProcessInbox('emptier@mailroom.test');
  account = box.inbox.address;
});
afterAll(async () => box?.close());

async function deliver(...subjects: string[]): Promise<void> {
  for (const subject of subjects)
    await box.deliver({ from: 'alice@example.com', to: account, subject, text: `About ${subject}` });
}
const listed = async (query: Record<string, unknown>) =>
  (await listEmails(box.deps, box.who, ListEmailsQuery.parse({ account, limit: 100, ...query }))).emails;
const subjectsIn = async (folder: string) => (await listed({ folder })).map((e) => e.subject).sort();
const empty = (folder: string, permanent = false, who = box.who) =>
  emptyFolder(box.deps, who, { account, folder }, { permanent });

describe('emptying a folder', () => {
  it('moves every email of the folder to Trash, keeping uids, and answers how many', async () => {
    await deliver('one', 'two', 'three');
    const before = await listed({});
    expect(await empty('INBOX')).toEqual({ folder: 'INBOX', count: 3, deleted: false, movedTo: 'Trash' });
    expect(await subjectsIn('INBOX')).toEqual([]);
    expect(await subjectsIn('Trash')).toEqual(['one', 'three', 'two']);
    const trashed = await listed({ folder: 'Trash' });
    expect(trashed.map((e) => e.uid).sort()).toEqual(before.map((e) => e.uid).sort());
  });

  it('empties Trash for good, and any folder for good when permanent', async () => {
    expect(await empty('Trash')).toEqual({ folder: 'Trash', count: 3, deleted: true, movedTo: null });
    expect(await subjectsIn('Trash')).toEqual([]);
    await deliver('four', 'five');
    expect(await empty('inbox', true)).toEqual({ folder: 'INBOX', count: 2, deleted: true, movedTo: null });
    expect(await subjectsIn('INBOX')).toEqual([]);
    expect(await subjectsIn('Trash')).toEqual([]);
    // Gone from the search index too.
    expect(await listed({ q: 'four' })).toEqual([]);
  });

  it('answers 0 for an empty folder and leaves other folders alone', async () => {
    await deliver('stays');
    await createFolder(box.deps, box.who, account, 'Archive');
    expect(await empty('Archive')).toEqual({ folder: 'Archive', count: 0, deleted: false, movedTo: 'Trash' });
    expect(await subjectsIn('INBOX')).toEqual(['stays']);
  });

  it('refuses unknown folders and other users, and nothing changes', async () => {
    expect(await refusal(empty('Nowhere'))).toBeInstanceOf(NotFound);
    const stranger = await box.addInbox('stranger@mailroom.test', 'stranger');
    expect(await refusal(empty('INBOX', false, stranger.who))).toBeInstanceOf(Forbidden);
    expect(await subjectsIn('INBOX')).toEqual(['stays']);
  });
});
