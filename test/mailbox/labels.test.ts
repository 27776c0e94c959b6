import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { Conflict, Forbidden, NotFound } from '../../src/mailbox/errors.js';
import {
  LABEL_PALETTE,
  applyLabels,
  createLabel,
  deleteLabel,
  getLabel,
  listLabels,
  removeLabel,
  updateLabel,
} from '../../src/mailbox/organising/labels.js';
import type { LabelView } from '../../src/mailbox/organising/labels.js';
import { deleteEmail } from '../../src/mailbox/organising/organise.js';
import { listEmails, readEmail } from '../../src/mailbox/reading/read.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess, Who } from '../helpers/in-process.js';

// The HTTP door's own part (the body's validation, status codes, the answer's words) is test/e2e/labels.test.ts.
let box: InProcess;
let account: string;
let other: { address: string; who: Who };

beforeAll(async () => {
  box = await inProcessInbox('labels@mailroom.test');
  account = box.inbox.address;
  const added = await box.addInbox('other@mailroom.test', 'other');
  other = { address: added.inbox.address, who: added.who };
});
afterAll(async () => box?.close());

const create = (input: Parameters<typeof createLabel>[2], who = box.who) => createLabel(box.deps, who, input);
const get = (idOrName: string, who = box.who) => getLabel(box.deps, who, idOrName);
const apply = (uid: number, labels: string[], who = box.who, address = account) =>
  applyLabels(box.deps, who, { account: address, uid }, labels);
const takeOff = (uid: number, label: string, who = box.who) =>
  removeLabel(box.deps, who, { account, uid }, label);
const labelsOf = async (uid: number, folder?: string) =>
  (await readEmail(box.deps, box.who, account, uid, folder)).labels.map((l) => l.name);

let counter = 0;
async function deliver(to = box.inbox): Promise<number> {
  const [filed] = await box.deliver(
    { from: 'bob@example.com', to: to.address, subject: `Labelled ${++counter}`, text: 'hello' },
    { to: [to] },
  );
  return filed!.uid;
}

describe('making labels', () => {
  it('keeps the name, the colour in lower case and the description, with an id and a UTC time', async () => {
    const label = await create({ name: 'Invoices', color: '#A1B2C3', description: 'bills to pay' });
    expect(label).toMatchObject({ name: 'Invoices', color: '#a1b2c3', description: 'bills to pay' });
    expect(label.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(label.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(await get(label.id)).toEqual(label);
  });

  it('picks a palette colour when none is given; no description is null', async () => {
    const label = await create({ name: 'No colour' });
    expect(LABEL_PALETTE).toContain(label.color);
    expect(label.description).toBeNull();
  });

  it('keeps names of 1 to 50 characters (not UTF-16 units), trimmed', async () => {
    for (const name of ['a', 'y'.repeat(50), '🏷'.repeat(50)])
      expect((await create({ name })).name).toBe(name);
    expect((await create({ name: '  Padded  ' })).name).toBe('Padded');
  });

  it('refuses a name taken in another case, non-ASCII too; another user may use it', async () => {
    await create({ name: 'Urgent' });
    for (const name of ['urgent', 'URGENT', ' Urgent '])
      expect(await refusal(create({ name }))).toBeInstanceOf(Conflict);
    expect((await create({ name: 'urgent' }, other.who)).name).toBe('urgent');
    await create({ name: 'Été' });
    expect(await refusal(create({ name: 'ÉTÉ' }))).toBeInstanceOf(Conflict);
  });
});

describe('reading, changing and deleting labels', () => {
  it('lists only your labels, newest first, paged by cursor', async () => {
    const mine = await listLabels(box.deps, box.who, 100);
    expect(mine.nextCursor).toBeNull();
    const names = mine.labels.map((l) => l.name);
    expect(names).toContain('Invoices');
    expect(names.indexOf('Urgent')).toBeLessThan(names.indexOf('Invoices'));
    expect((await listLabels(box.deps, other.who, 20)).labels.map((l) => l.name)).toEqual(['urgent']);
    const first = await listLabels(box.deps, box.who, 2);
    expect(first.labels).toHaveLength(2);
    const second = await listLabels(box.deps, box.who, 2, first.nextCursor!);
    expect(second.labels[0]!.id).toBe(mine.labels[2]!.id);
  });

  it("reads a label by id or by name; an unknown one and another user's are not found", async () => {
    const created = await create({ name: 'Readable' });
    expect((await get('readable')).id).toBe(created.id);
    expect(await refusal(get('no-such-label'))).toBeInstanceOf(NotFound);
    expect(await refusal(get(created.id, other.who))).toBeInstanceOf(NotFound);
  });

  it('changes the fields given and keeps the rest; a taken name is refused', async () => {
    const label = await create({ name: 'Draftish', color: '#000000', description: 'x' });
    const renamed = await updateLabel(box.deps, box.who, label.id, { name: 'Drafty' });
    expect(renamed).toMatchObject({ id: label.id, name: 'Drafty', color: '#000000', description: 'x' });
    expect(renamed.created_at).toBe(label.created_at);
    expect(
      await updateLabel(box.deps, box.who, label.id, { name: 'DRAFTY', color: '#FFFFFF' }),
    ).toMatchObject({
      name: 'DRAFTY',
      color: '#ffffff',
    });
    expect((await updateLabel(box.deps, box.who, label.id, { description: null })).description).toBeNull();
    expect(await refusal(updateLabel(box.deps, box.who, label.id, { name: 'invoices' }))).toBeInstanceOf(
      Conflict,
    );
    expect((await get(label.id)).name).toBe('DRAFTY');
  });

  it('another user cannot change or delete your label, and it stays as it was', async () => {
    const label = await create({ name: 'Mine only', color: '#123456' });
    expect(await refusal(updateLabel(box.deps, other.who, label.id, { name: 'Stolen' }))).toBeInstanceOf(
      NotFound,
    );
    expect(await refusal(deleteLabel(box.deps, other.who, label.id))).toBeInstanceOf(NotFound);
    expect(await get(label.id)).toEqual(label);
  });

  it('deleting a label takes it off every email and frees its name', async () => {
    const label = await create({ name: 'Doomed' });
    const uid = await deliver();
    await apply(uid, [label.id]);
    expect(await deleteLabel(box.deps, box.who, label.id)).toEqual({ id: label.id });
    expect(await refusal(get(label.id))).toBeInstanceOf(NotFound);
    expect(await labelsOf(uid)).toEqual([]);
    expect(await refusal(deleteLabel(box.deps, box.who, label.id))).toBeInstanceOf(NotFound);
    expect((await create({ name: 'Doomed' })).name).toBe('Doomed');
  });
});

describe('labels on emails', () => {
  let work: LabelView;
  let home: LabelView;
  beforeAll(async () => {
    work = await create({ name: 'Work', color: '#22c55e' });
    home = await create({ name: 'Home', color: '#0ea5e9' });
  });
  const list = async (query: Record<string, unknown>) =>
    (await listEmails(box.deps, box.who, ListEmailsQuery.parse({ account, limit: 100, ...query }))).emails;

  it('applies labels by id or name, once each; the read and the list show them', async () => {
    const uid = await deliver();
    const refs = [
      { id: home.id, name: 'Home', color: '#0ea5e9' },
      { id: work.id, name: 'Work', color: '#22c55e' },
    ];
    expect((await apply(uid, [work.id, 'home'])).labels).toEqual(refs);
    expect((await apply(uid, ['WORK', work.id])).labels).toEqual(refs);
    expect((await readEmail(box.deps, box.who, account, uid)).labels).toEqual(refs);
    expect((await list({})).find((e) => e.uid === uid)!.labels).toEqual(refs);
  });

  it('the list finds labelled mail by label id or name; an unknown label is not found', async () => {
    const tagged = await deliver();
    const untagged = await deliver();
    await apply(tagged, ['Work']);
    for (const label of [work.id, 'work', 'Work']) {
      const uids = (await list({ label })).map((e) => e.uid);
      expect(uids).toContain(tagged);
      expect(uids).not.toContain(untagged);
    }
    expect(await refusal(list({ label: 'no-such-label' }))).toBeInstanceOf(NotFound);
  });

  it('labels stay on an email moved to Trash', async () => {
    const uid = await deliver();
    await apply(uid, ['Home']);
    await deleteEmail(box.deps, box.who, { account, uid });
    expect(await labelsOf(uid, 'Trash')).toEqual(['Home']);
  });

  it('an unknown label is refused naming it, and no label is applied', async () => {
    const uid = await deliver();
    const refused = await refusal(apply(uid, ['Work', 'Nope']));
    expect(refused).toBeInstanceOf(NotFound);
    expect((refused as Error).message).toContain('Nope');
    expect(await labelsOf(uid)).toEqual([]);
  });

  it('takes one label off, by id or name; again is no error; unknown labels and emails are not found', async () => {
    const uid = await deliver();
    await apply(uid, ['Work', 'Home']);
    expect((await takeOff(uid, work.id)).labels.map((l) => l.name)).toEqual(['Home']);
    expect((await takeOff(uid, 'home')).labels).toEqual([]);
    expect((await takeOff(uid, 'home')).labels).toEqual([]);
    expect(await refusal(takeOff(uid, 'nope'))).toBeInstanceOf(NotFound);
    expect(await refusal(takeOff(99_999, 'home'))).toBeInstanceOf(NotFound);
  });

  it("another user cannot label or unlabel this inbox's emails, and nothing changes", async () => {
    const uid = await deliver();
    await apply(uid, ['Work']);
    expect(await refusal(apply(uid, ['urgent'], other.who))).toBeInstanceOf(Forbidden);
    expect(await refusal(takeOff(uid, work.id, other.who))).toBeInstanceOf(Forbidden);
    expect(await labelsOf(uid)).toEqual(['Work']);
  });

  it("a user cannot put someone else's label on their own mail", async () => {
    const theirs = (await box.deps.store.inboxes.findByAddress(other.address))!;
    const uid = await deliver(theirs);
    expect(await refusal(apply(uid, [work.id], other.who, other.address))).toBeInstanceOf(NotFound);
    expect((await apply(uid, ['urgent'], other.who, other.address)).labels.map((l) => l.name)).toEqual([
      'urgent',
    ]);
  });
});
