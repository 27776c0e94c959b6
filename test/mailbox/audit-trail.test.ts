import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditAction } from '../../src/contract/audit.js';
import { AuditQuery } from '../../src/contract/audit.js';
import { approveSend, cancelSend, rejectSend } from '../../src/mailbox/approvals/approvals.js';
import type { AuditContext } from '../../src/mailbox/audit/audit-context.js';
import { finishAudit, openAudit } from '../../src/mailbox/audit/audit-context.js';
import { listAllAudit, listAudit, verifyAudit } from '../../src/mailbox/audit/trail.js';
import type { Caller } from '../../src/mailbox/caller.js';
import { createDraft, deleteDraft, updateDraft } from '../../src/mailbox/drafts/drafts.js';
import {
  createWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  updateWebhook,
} from '../../src/mailbox/events/webhooks.js';
import { updateInboxSettings } from '../../src/mailbox/limits/inbox-settings.js';
import {
  addDomain,
  addLocalInbox,
  addUser,
  removeDomain,
  removeInbox,
  removeUser,
} from '../../src/mailbox/operations/admin.js';
import { createPrunes } from '../../src/mailbox/operations/prunes.js';
import { emptyFolder } from '../../src/mailbox/organising/empty-folder.js';
import { createFolder, deleteFolder } from '../../src/mailbox/organising/folders.js';
import {
  applyLabels,
  createLabel,
  deleteLabel,
  removeLabel,
  updateLabel,
} from '../../src/mailbox/organising/labels.js';
import { deleteEmail, updateEmail } from '../../src/mailbox/organising/organise.js';
import { addEntry } from '../../src/mailbox/policy/lists.js';
import { liftSuppression, suppressBounced } from '../../src/mailbox/policy/suppressions.js';
import { sendEmail } from '../../src/mailbox/sending/send.js';
import type { AuditRow } from '../../src/store/audit.js';
import type { InProcess } from '../helpers/in-process.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';

const DAY = 24 * 60 * 60 * 1000;

let box: InProcess;
let account: string;
let n = 0;

beforeAll(async () => {
  box = await inProcessInbox('audited@mailroom.test');
  account = box.inbox.address;
});
afterAll(async () => box?.close());

/** A request's record in the making, as the API door opens it for a key. */
function opened(action: AuditAction): AuditContext {
  return openAudit({
    door: 'api',
    action,
    requestId: `req-${(n += 1)}`,
    actor: { kind: 'key', id: 'key_test' },
    userId: box.inbox.user_id,
  });
}
const acting = (audit: AuditContext): Caller => ({ ...box.who, audit });

async function rows(): Promise<AuditRow[]> {
  const { db } = box.deps.store;
  return db.all(db.kysely.selectFrom('audit_log').selectAll().orderBy('seq', 'asc'));
}

/** The contract's formula, written out again here: SHA-256 of previous hash, newline, sorted-key JSON. */
function expectedHash(previous: string, row: AuditRow): string {
  const record = {
    account: row.account,
    action: row.action,
    actor: { id: row.actor_id, kind: row.actor_kind },
    at: row.at,
    door: row.door,
    id: row.id,
    outcome: row.outcome,
    requestId: row.request_id,
    target: row.target,
  };
  return crypto
    .createHash('sha256')
    .update(`${previous}\n${JSON.stringify(record)}`)
    .digest('hex');
}

async function editOutcome(id: string, outcome: string): Promise<void> {
  const { db } = box.deps.store;
  await db.run(db.kysely.updateTable('audit_log').set({ outcome }).where('id', '=', id));
}

describe('the audit trail (contract 15)', () => {
  it('writes a send, a delete and a list change in their own transactions, chained from 64 zeros', async () => {
    const send = opened('email.send');
    const sent = await sendEmail(box.deps, acting(send), {
      from: account,
      to: ['someone@example.com'],
      subject: 'A secret subject line',
      text: 'the body',
    });
    expect(send.written).toBe(true);
    const del = opened('email.delete');
    await deleteEmail(box.deps, acting(del), { account, uid: sent.uid, folder: 'Sent' });
    const list = opened('list.add');
    await addEntry(box.deps, acting(list), { direction: 'send', type: 'block' }, { entry: 'spam.example' });
    for (const audit of [send, del, list]) await finishAudit(box.deps, audit, 'ok'); // writes nothing more

    const all = await rows();
    expect(all.map((r) => [r.action, r.outcome, r.account, r.target])).toEqual([
      ['email.send', 'ok', account, String(sent.uid)],
      ['email.delete', 'ok', account, String(sent.uid)],
      ['list.add', 'ok', null, 'send/block/spam.example'],
    ]);
    let previous = '0'.repeat(64);
    for (const row of all) {
      expect(row.hash).toBe(expectedHash(previous, row));
      previous = row.hash;
    }
    expect(JSON.stringify(all)).not.toContain('secret subject');
  });

  it('writes no ok record for a refused change, and the door records the refusal', async () => {
    const before = (await rows()).length;
    const refused = opened('email.send');
    const error = await sendEmail(box.deps, acting(refused), {
      from: account,
      to: ['x@spam.example'],
      subject: 's',
      text: 't',
    }).catch((e: unknown) => e);
    expect(refused.written).toBe(false);
    await finishAudit(box.deps, refused, (error as { code: string }).code);
    const added = (await rows()).slice(before);
    expect(added.map((r) => [r.action, r.outcome])).toEqual([['email.send', 'recipient_blocked']]);
  });

  it('verifies a whole chain, and names the first record edited in the database', async () => {
    expect(await verifyAudit(box.deps)).toMatchObject({ whole: true });
    const all = await rows();
    const edited = all[1]!;
    await editOutcome(edited.id, 'forbidden');
    expect(await verifyAudit(box.deps)).toEqual({ whole: false, records: 2, firstBad: edited.id });
    await editOutcome(edited.id, edited.outcome);
    expect(await verifyAudit(box.deps)).toMatchObject({ whole: true });
  });

  it('keeps the chain whole under many concurrent writers', async () => {
    const sends = Array.from({ length: 12 }, (_, i) =>
      sendEmail(box.deps, acting(opened('email.send')), {
        from: account,
        to: [`r${i}@example.com`],
        subject: `s${i}`,
        text: 't',
      }),
    );
    const refusals = Array.from({ length: 12 }, () =>
      finishAudit(box.deps, opened('label.create'), 'validation_error'),
    );
    await Promise.all([...sends, ...refusals]);
    const all = await rows();
    const previous = new Set(all.map((r) => r.prev_hash));
    expect(previous.size).toBe(all.length); // no two records chained to the same one: no fork
    expect(await verifyAudit(box.deps)).toEqual({ whole: true, records: all.length });
  });

  it('prunes records older than MAILROOM_AUDIT_RETENTION_DAYS, and what is kept still verifies', async () => {
    const oldest = await rows();
    const last = oldest[oldest.length - 1]!;
    while (new Date().toISOString() <= last.at) await new Promise((r) => setImmediate(r)); // the clock moves on
    await finishAudit(box.deps, opened('label.create'), 'ok');
    await finishAudit(box.deps, opened('label.delete'), 'ok');
    const kept = (await rows()).slice(oldest.length);
    const retention = box.deps.config.auditRetentionDays;
    const at = (date: string, days: number) => () => new Date(Date.parse(date) + days * DAY);
    await createPrunes(box.deps, { intervalMs: 1, now: at(kept[0]!.at, retention - 1) }).pruneOnce();
    expect((await rows()).length).toBe(oldest.length + 2); // nothing old enough yet
    await createPrunes(box.deps, { intervalMs: 1, now: at(kept[0]!.at, retention) }).pruneOnce();
    expect((await rows()).map((r) => r.id)).toEqual(kept.map((r) => r.id));
    expect(await verifyAudit(box.deps)).toEqual({ whole: true, records: 2 });
    await editOutcome(kept[0]!.id, 'forbidden');
    expect(await verifyAudit(box.deps)).toMatchObject({ whole: false, firstBad: kept[0]!.id });
  });
});

/**
 * The verbs that write their own record (contract 15: in the change's transaction): run in-process
 * with an opened audit context and no door, the record is there when the verb returns.
 */
describe('records written in the change’s own transaction', () => {
  /** Runs the verb as a request with `action`; its records by request id, and whether it wrote one. */
  async function asRequest<T>(action: AuditAction, verb: (caller: Caller) => Promise<T>) {
    const audit = opened(action);
    const outcome = await verb(acting(audit)).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const written = (await rows()).filter((r) => r.request_id === audit.requestId);
    return { ...outcome, audit, written: written.map((r) => [r.action, r.outcome, r.account, r.target]) };
  }

  it('drafts: create, update and delete each write theirs; a refused update writes none', async () => {
    const created = await asRequest('draft.create', (c) =>
      createDraft(box.deps, c, account, { to: ['a@example.com'], subject: 'draft' }),
    );
    const uid = (created as { value: { uid: number } }).value.uid;
    expect(created.written).toEqual([['draft.create', 'ok', account, String(uid)]]);
    const updated = await asRequest('draft.update', (c) =>
      updateDraft(box.deps, c, account, uid, { subject: 'draft again' }),
    );
    expect(updated.written).toEqual([['draft.update', 'ok', account, String(uid)]]);
    const refused = await asRequest('draft.update', (c) =>
      updateDraft(box.deps, c, account, uid, { to: ['not an address'] }),
    );
    expect(refused).toMatchObject({ error: { code: 'validation_error' }, written: [] });
    expect(refused.audit.written).toBe(false);
    const deleted = await asRequest('draft.delete', (c) => deleteDraft(box.deps, c, account, uid));
    expect(deleted.written).toEqual([['draft.delete', 'ok', account, String(uid)]]);
    const gone = await asRequest('draft.delete', (c) => deleteDraft(box.deps, c, account, uid));
    expect(gone).toMatchObject({ error: { code: 'not_found' }, written: [] });
  });

  it('labels: create, update, delete, labelling and unlabelling an email; a clash writes none', async () => {
    const created = await asRequest('label.create', (c) => createLabel(box.deps, c, { name: 'Audited' }));
    const id = (created as { value: { id: string } }).value.id;
    expect(created.written).toEqual([['label.create', 'ok', null, id]]);
    const clash = await asRequest('label.create', (c) => createLabel(box.deps, c, { name: 'Audited' }));
    expect(clash).toMatchObject({ error: { code: 'conflict' }, written: [] });
    const updated = await asRequest('label.update', (c) =>
      updateLabel(box.deps, c, 'Audited', { color: '#112233' }),
    );
    expect(updated.written).toEqual([['label.update', 'ok', null, id]]);
    const [mail] = await box.deliver({ from: 'x@example.com', to: account, subject: 'to label', text: 't' });
    const uid = mail!.uid;
    const labelled = await asRequest('email.label', (c) => applyLabels(box.deps, c, { account, uid }, [id]));
    expect(labelled.written).toEqual([['email.label', 'ok', account, String(uid)]]);
    const unknown = await asRequest('email.label', (c) =>
      applyLabels(box.deps, c, { account, uid }, ['nope']),
    );
    expect(unknown).toMatchObject({ error: { code: 'not_found' }, written: [] });
    const unlabelled = await asRequest('email.unlabel', (c) =>
      removeLabel(box.deps, c, { account, uid }, id),
    );
    expect(unlabelled.written).toEqual([['email.unlabel', 'ok', account, `${uid}/${id}`]]);
    const deleted = await asRequest('label.delete', (c) => deleteLabel(box.deps, c, id));
    expect(deleted.written).toEqual([['label.delete', 'ok', null, id]]);
  });

  it('folders: create, delete and emptying one; deleting a standard folder writes none', async () => {
    const created = await asRequest('folder.create', (c) => createFolder(box.deps, c, account, 'Kept'));
    expect(created.written).toEqual([['folder.create', 'ok', account, 'Kept']]);
    const clash = await asRequest('folder.create', (c) => createFolder(box.deps, c, account, 'kept'));
    expect(clash).toMatchObject({ error: { code: 'conflict' }, written: [] });
    const [mail] = await box.deliver({ from: 'x@example.com', to: account, subject: 'to empty', text: 't' });
    await updateEmail(box.deps, box.who, { account, uid: mail!.uid }, { action: 'move', folder: 'Kept' });
    const emptied = await asRequest('email.empty_folder', (c) =>
      emptyFolder(box.deps, c, { account, folder: 'Kept' }),
    );
    expect(emptied).toMatchObject({
      value: { count: 1 },
      written: [['email.empty_folder', 'ok', account, 'Kept']],
    });
    const standard = await asRequest('folder.delete', (c) => deleteFolder(box.deps, c, account, 'Inbox'));
    expect(standard).toMatchObject({ error: { code: 'validation_error' }, written: [] });
    const deleted = await asRequest('folder.delete', (c) => deleteFolder(box.deps, c, account, 'Kept'));
    expect(deleted.written).toEqual([['folder.delete', 'ok', account, 'Kept']]);
  });

  it('webhooks: create, update, rotate secret and delete; an unknown one writes none', async () => {
    const url = 'https://93.184.215.14/hooks/mail';
    const created = await asRequest('webhook.create', (c) =>
      createWebhook(box.deps, c, { url, events: ['email.received'] }),
    );
    const id = (created as { value: { id: string } }).value.id;
    expect(created.written).toEqual([['webhook.create', 'ok', null, id]]);
    const updated = await asRequest('webhook.update', (c) =>
      updateWebhook(box.deps, c, id, { description: 'd' }),
    );
    expect(updated.written).toEqual([['webhook.update', 'ok', null, id]]);
    const rotated = await asRequest('webhook.rotate_secret', (c) => rotateWebhookSecret(box.deps, c, id));
    expect(rotated.written).toEqual([['webhook.rotate_secret', 'ok', null, id]]);
    const refused = await asRequest('webhook.update', (c) =>
      updateWebhook(box.deps, c, id, { url: 'ftp://example.com/hook' }),
    );
    expect(refused).toMatchObject({ error: { code: 'validation_error' }, written: [] });
    const deleted = await asRequest('webhook.delete', (c) => deleteWebhook(box.deps, c, id));
    expect(deleted.written).toEqual([['webhook.delete', 'ok', null, id]]);
    const gone = await asRequest('webhook.delete', (c) => deleteWebhook(box.deps, c, id));
    expect(gone).toMatchObject({ error: { code: 'not_found' }, written: [] });
  });

  it('approvals: approve (through the send), reject and cancel; deciding twice writes none', async () => {
    await updateInboxSettings(box.deps, box.who, account, { mode: 'approve_all' });
    const agent: Caller = { ...box.who, keyId: 'key_agent' };
    const held = async (subject: string) => {
      const sent = await sendEmail(box.deps, agent, {
        from: account,
        to: ['a@example.com'],
        subject,
        text: 't',
      });
      return { id: (sent as { approvalId: string }).approvalId, uid: sent.uid };
    };
    const [first, second, third] = [await held('one'), await held('two'), await held('three')];
    const approved = await asRequest('approval.approve', (c) => approveSend(box.deps, c, first.id));
    expect(approved.written).toEqual([['approval.approve', 'ok', account, first.id]]);
    const twice = await asRequest('approval.approve', (c) => approveSend(box.deps, c, first.id));
    expect(twice).toMatchObject({ error: { code: 'conflict' }, written: [] });
    const rejected = await asRequest('approval.reject', (c) => rejectSend(box.deps, c, second.id));
    expect(rejected.written).toEqual([['approval.reject', 'ok', account, second.id]]);
    const cancelled = await asRequest('email.cancel', (c) => cancelSend(box.deps, c, account, third.uid));
    expect(cancelled.written).toEqual([['email.cancel', 'ok', account, String(third.uid)]]);
    const again = await asRequest('email.cancel', (c) => cancelSend(box.deps, c, account, third.uid));
    expect(again).toMatchObject({ error: { code: 'not_found' }, written: [] });
    await updateInboxSettings(box.deps, box.who, account, { mode: 'autonomous' });
  });

  it('a send kept in Outbox, for a person or for its time, writes its record in the hold’s transaction', async () => {
    const send = (c: Caller, subject: string, sendAt?: string) =>
      sendEmail(box.deps, c, { from: account, to: ['a@example.com'], subject, text: 't', sendAt });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await asRequest('email.send', (c) => send(c, 'later', later));
    const scheduledUid = (scheduled as { value: { uid: number; status: string } }).value;
    expect(scheduledUid.status).toBe('scheduled');
    expect(scheduled.written).toEqual([['email.send', 'ok', account, String(scheduledUid.uid)]]);
    await updateInboxSettings(box.deps, box.who, account, { mode: 'approve_all' });
    const held = await asRequest('email.send', (c) => send(c, 'for a person'));
    const heldUid = (held as { value: { uid: number; status: string } }).value;
    expect(heldUid.status).toBe('pending_approval');
    expect(held.written).toEqual([['email.send', 'ok', account, String(heldUid.uid)]]);
    await updateInboxSettings(box.deps, box.who, account, { mode: 'autonomous' });
  });

  it('suppressions: lifting one writes its record; lifting one not there writes none', async () => {
    await suppressBounced(box.deps, box.who.userId, ['gone@example.com']);
    const lifted = await asRequest('suppression.remove', (c) =>
      liftSuppression(box.deps, c, 'gone@example.com'),
    );
    expect(lifted.written).toEqual([['suppression.remove', 'ok', null, 'gone@example.com']]);
    const again = await asRequest('suppression.remove', (c) =>
      liftSuppression(box.deps, c, 'gone@example.com'),
    );
    expect(again).toMatchObject({ error: { code: 'not_found' }, written: [] });
  });

  it('the admin: domains, users and inboxes added and removed; a clash writes none', async () => {
    const asAdmin = async (action: AuditAction, verb: (audit: AuditContext) => Promise<unknown>) => {
      const audit = openAudit({
        door: 'cli',
        action,
        requestId: `req-${(n += 1)}`,
        actor: { kind: 'admin', id: null },
        userId: null,
      });
      const error = await verb(audit).then(
        () => undefined,
        (e: unknown) => e,
      );
      const written = (await rows()).filter((r) => r.seq > last);
      last = Math.max(last, ...written.map((r) => r.seq));
      return { error, written: written.map((r) => [r.action, r.outcome, r.account, r.target]) };
    };
    let last = Math.max(0, ...(await rows()).map((r) => r.seq));
    expect((await asAdmin('domain.create', (a) => addDomain(box.deps, 'audited.test', a))).written).toEqual([
      ['domain.create', 'ok', null, 'audited.test'],
    ]);
    expect(await asAdmin('domain.create', (a) => addDomain(box.deps, 'audited.test', a))).toMatchObject({
      error: { code: 'conflict' },
      written: [],
    });
    expect((await asAdmin('user.create', (a) => addUser(box.deps, 'carol', {}, a))).written).toEqual([
      ['user.create', 'ok', null, 'carol'],
    ]);
    const address = 'carol@audited.test';
    expect(
      (await asAdmin('inbox.create', (a) => addLocalInbox(box.deps, address, 'carol', '', a))).written,
    ).toEqual([['inbox.create', 'ok', address, null]]);
    expect(
      (await asAdmin('domain.remove', (a) => removeDomain(box.deps, 'audited.test', a))).written,
    ).toEqual([]);
    expect(
      (await asAdmin('inbox.remove', (a) => removeInbox(box.deps, address, undefined, a))).written,
    ).toEqual([['inbox.remove', 'ok', address, null]]);
    expect((await asAdmin('user.remove', (a) => removeUser(box.deps, 'carol', a))).written).toEqual([
      ['user.remove', 'ok', null, 'carol'],
    ]);
    expect(
      (await asAdmin('domain.remove', (a) => removeDomain(box.deps, 'audited.test', a))).written,
    ).toEqual([['domain.remove', 'ok', null, 'audited.test']]);
  });
});

// What GET /audit and GET /admin/v1/audit answer, on both engines (the HTTP file keeps the doors).
describe('the audit list', () => {
  let own: InProcess;
  beforeAll(async () => {
    own = await inProcessInbox('lists@mailroom.test');
  });
  afterAll(async () => own?.close());

  it("pages a user's records newest first; a key limited to an inbox sees that inbox's and the user-wide ones; filters by action and outcome; the admin list has every user's", async () => {
    const { deps, inbox } = own;
    const second = await addLocalInbox(deps, 'second@mailroom.test', 'owner');
    const stranger = await own.addInbox('stranger@mailroom.test', 'stranger');
    const write = (action: AuditAction, at: { address: string | null; userId: number }, outcome = 'ok') =>
      finishAudit(
        deps,
        openAudit({
          door: 'api',
          action,
          requestId: null,
          actor: { kind: 'key', id: 'key_lister' },
          userId: at.userId,
          account: at.address,
        }),
        outcome,
      );
    const owner = inbox.user_id;
    await write('email.send', { address: inbox.address, userId: owner });
    await write('email.send', { address: second.address, userId: owner });
    await write('key.create', { address: null, userId: owner });
    await write('list.add', { address: second.address, userId: owner }, 'validation_error');
    await write('email.send', { address: stranger.inbox.address, userId: stranger.inbox.user_id });
    const query = (filter: Record<string, string> = {}) => AuditQuery.parse({ limit: '100', ...filter });
    const listed = (list: { records: { action: string; account: string | null }[] }) =>
      list.records.map((r) => [r.action, r.account]);

    const mine = await listAudit(deps, own.who, query());
    expect(listed(mine)).toEqual([
      ['list.add', second.address],
      ['key.create', null],
      ['email.send', second.address],
      ['email.send', inbox.address],
    ]);
    const first = await listAudit(deps, own.who, query({ limit: '3' }));
    const rest = await listAudit(deps, own.who, query({ limit: '3', cursor: first.nextCursor! }));
    expect([...first.records, ...rest.records].map((r) => r.id)).toEqual(mine.records.map((r) => r.id));
    expect(rest.nextCursor).toBeNull();

    const limited = { ...own.who, keyId: 'key_limited', inboxes: [second.address] };
    expect(listed(await listAudit(deps, limited, query()))).toEqual([
      ['list.add', second.address],
      ['key.create', null],
      ['email.send', second.address],
    ]);
    expect(await refusal(listAudit(deps, limited, query({ account: inbox.address })))).toMatchObject({
      code: 'forbidden',
    });
    expect(listed(await listAudit(deps, own.who, query({ account: inbox.address })))).toEqual([
      ['email.send', inbox.address],
    ]);

    expect(
      listed(await listAudit(deps, own.who, query({ outcome: 'validation_error', action: 'list.add' }))),
    ).toEqual([['list.add', second.address]]);
    expect(listed(await listAudit(deps, own.who, query({ action: 'email.send' })))).toHaveLength(2);

    expect(listed(await listAllAudit(deps, query({ action: 'email.send' })))).toEqual([
      ['email.send', stranger.inbox.address],
      ['email.send', second.address],
      ['email.send', inbox.address],
    ]);
  });
});
