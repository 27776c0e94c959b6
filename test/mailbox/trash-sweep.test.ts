import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { NotFound } from '../../src/mailbox/errors.js';
import { createFolder, deleteFolder } from '../../src/mailbox/organising/folders.js';
import { applyLabels, createLabel, getLabel } from '../../src/mailbox/organising/labels.js';
import { deleteEmail, updateEmail } from '../../src/mailbox/organising/organise.js';
import { createTrashSweep } from '../../src/mailbox/organising/trash-sweep.js';
import { listEmails, readEmail, readRaw } from '../../src/mailbox/reading/read.js';
import { inProcessInbox } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

// That the server sweeps at start is test/e2e/trash-sweep.test.ts.
const DAY = 24 * 60 * 60 * 1000;

let box: InProcess;
let account: string;

beforeAll(async () => {
  box = await inProcessInbox('sweeper@mailroom.test', { trashDays: 30 });
  account = box.inbox.address;
});
afterAll(async () => box?.close());

let counter = 0;
async function deliver(): Promise<number> {
  const [filed] = await box.deliver({
    from: 'dave@example.com',
    to: account,
    subject: `Sweepable ${++counter}`,
    text: 'bye',
  });
  return filed!.uid;
}
const trash = (uid: number) => deleteEmail(box.deps, box.who, { account, uid });
const moveTo = (uid: number, folder: string) =>
  updateEmail(box.deps, box.who, { account, uid }, { action: 'move', folder });
/** The folder the email is in, or null once it is gone for good (its source too). */
const where = async (uid: number): Promise<string | null> => {
  const raw = await readRaw(box.deps, box.who, account, uid).catch((error: unknown) => error);
  if (raw instanceof NotFound) return null;
  return (await readEmail(box.deps, box.who, account, uid)).folder;
};
/** A sweep that believes it is `days` days from now. */
const sweepAt = (days: number) =>
  createTrashSweep(box.deps, { now: () => new Date(Date.now() + days * DAY) }).sweepOnce();
const found = async (query: Record<string, unknown>) =>
  (await listEmails(box.deps, box.who, ListEmailsQuery.parse({ account, ...query }))).emails;

describe('the trash sweep', () => {
  it('deletes mail that has been in Trash longer than MAILROOM_TRASH_DAYS, counted from the move', async () => {
    const uid = await deliver();
    expect((await trash(uid)).folder).toBe('Trash');
    await sweepAt(29);
    expect(await where(uid)).toBe('Trash');
    await sweepAt(31);
    expect(await where(uid)).toBeNull();
  });

  it('counts from the move to Trash, not from arrival', async () => {
    const uid = await deliver();
    const row = (await box.deps.store.messages.getByUid(box.inbox.id, uid))!;
    await box.deps.store.db.rawRun(
      'UPDATE messages SET received_at = ? WHERE id = ?',
      new Date(Date.now() - 90 * DAY).toISOString(),
      row.id,
    );
    await trash(uid);
    await sweepAt(0);
    expect(await where(uid)).toBe('Trash');
  });

  it('never touches mail outside Trash, however old; moving out of Trash stops the clock', async () => {
    const kept = await deliver();
    const rescued = await deliver();
    await trash(rescued);
    await moveTo(rescued, 'INBOX');
    await sweepAt(365);
    expect(await where(kept)).toBe('INBOX');
    expect(await where(rescued)).toBe('INBOX');
    await trash(rescued);
    await sweepAt(29);
    expect(await where(rescued)).toBe('Trash');
  });

  it('mail of a deleted folder gets the full retention in Trash', async () => {
    await createFolder(box.deps, box.who, account, 'Archive');
    const uid = await deliver();
    await moveTo(uid, 'Archive');
    await deleteFolder(box.deps, box.who, account, 'Archive');
    await sweepAt(29);
    expect(await where(uid)).toBe('Trash');
    await sweepAt(31);
    expect(await where(uid)).toBeNull();
  });

  it('takes labels, attachments and the search entry with the message', async () => {
    const [filed] = await box.deliver({
      from: 'dave@example.com',
      to: account,
      subject: 'Kumquat invoice',
      text: 'see attached kumquat',
      attachments: [{ filename: 'a.txt', content: 'kumquat data' }],
    });
    const uid = filed!.uid;
    const label = await createLabel(box.deps, box.who, { name: 'Fruit' });
    await applyLabels(box.deps, box.who, { account, uid }, ['Fruit']);
    await trash(uid);
    expect(await found({ folder: 'Trash', q: 'kumquat' })).toHaveLength(1);

    await sweepAt(31);
    expect(await found({ folder: 'Trash', q: 'kumquat' })).toHaveLength(0);
    expect(await found({ folder: 'Trash', label: 'Fruit' })).toHaveLength(0);
    expect((await getLabel(box.deps, box.who, label.id)).name).toBe('Fruit');
    const { db } = box.deps.store;
    expect(await db.rawFirst('SELECT count(*) AS n FROM attachments')).toEqual({ n: 0 });
    expect(await db.rawFirst('SELECT count(*) AS n FROM message_labels')).toEqual({ n: 0 });
  });
});
