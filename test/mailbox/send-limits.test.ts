import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownerCaller } from '../../src/mailbox/caller.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { MailroomError, TryLater } from '../../src/mailbox/errors.js';
import { receiveMessage } from '../../src/mailbox/ingest/receive.js';
import { getInboxSettings, updateInboxSettings } from '../../src/mailbox/limits/inbox-settings.js';
import { createPrunes } from '../../src/mailbox/operations/prunes.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import { createDraft, sendDraft } from '../../src/mailbox/drafts/drafts.js';
import { replyToEmail } from '../../src/mailbox/sending/reply-forward.js';
import { sendEmail } from '../../src/mailbox/sending/send.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { buildDeps } from '../../src/mailbox/runtime.js';
import { createStore } from '../../src/store/index.js';
import { inProcessInbox } from '../helpers/in-process.js';

// The owner's send rules of contract 14 (inbox settings, send limits, the loop guard), on the
// project's engine: what an agent sending through any door meets.
describe('inbox settings and send limits', () => {
  let deps: MailboxDeps;
  let inbox: InboxRow;
  let close: () => Promise<void>;
  let userId: number;

  beforeEach(async () => {
    ({ deps, inbox, close } = await inProcessInbox('agent@mailroom.test'));
    userId = inbox.user_id;
  });
  afterEach(async () => close());

  const owner = () => ownerCaller(userId);
  const settings = (changes: Parameters<typeof updateInboxSettings>[3]) =>
    updateInboxSettings(deps, owner(), inbox.address, changes);
  const send = (to: string[], subject = 'hello', cc: string[] = []) =>
    sendEmail(deps, owner(), { from: inbox.address, to, cc, subject, text: 'hi' });
  /** The refusal a send met, or null when it went out. */
  const refusalOf = async (sending: Promise<unknown>): Promise<MailroomError | null> => {
    try {
      await sending;
      return null;
    } catch (error) {
      if (error instanceof MailroomError) return error;
      throw error;
    }
  };
  const sentSubjects = async () =>
    (await listEmails(deps, owner(), { account: inbox.address, folder: 'Sent', limit: 100 })).emails.map(
      (e) => e.subject,
    );
  const eventsOf = async (type: string) =>
    (await deps.store.events.since([inbox.id], 0, 1000)).filter((e) => e.type === type);

  it('shows the server defaults and nothing sent on a new inbox', async () => {
    expect(await getInboxSettings(deps, owner(), inbox.address)).toEqual({
      mode: 'autonomous',
      paused: false,
      limits: { perHour: 500, perDay: 2000 },
      sent: { lastHour: 0, lastDay: 0 },
    });
  });

  it('lets exactly 3 recipients through a limit of 3 across messages, and refuses a send that would pass it whole', async () => {
    await settings({ limits: { perHour: 3 } });
    expect(await refusalOf(send(['a@example.com', 'b@example.com']))).toBeNull();
    const refused = await refusalOf(send(['c@example.com', 'd@example.com'], 'too many'));
    expect(refused).toBeInstanceOf(TryLater);
    expect(refused?.code).toBe('rate_limited');
    expect(refused?.message).toContain('perHour');
    expect((refused as TryLater).retryAfterSeconds).toBeGreaterThan(0);
    expect((refused as TryLater).retryAfterSeconds).toBeLessThanOrEqual(3600);
    expect(await refusalOf(send(['c@example.com'], 'third'))).toBeNull();
    expect((await refusalOf(send(['e@example.com'], 'fourth')))?.code).toBe('rate_limited');
    expect(await sentSubjects()).toEqual(['third', 'hello']);
    const now = await getInboxSettings(deps, owner(), inbox.address);
    expect(now.sent).toEqual({ lastHour: 3, lastDay: 3 });
  });

  it('counts local recipients, and names perDay when the day limit refuses', async () => {
    await settings({ limits: { perHour: 0, perDay: 2 } });
    expect(await refusalOf(send(['agent@mailroom.test', 'x@example.com']))).toBeNull();
    const refused = await refusalOf(send(['y@example.com']));
    expect(refused?.code).toBe('rate_limited');
    expect(refused?.message).toContain('perDay');
  });

  it('counts a send, a reply and a draft send alike', async () => {
    await settings({ limits: { perHour: 3 } });
    await receiveMessage(deps, {
      raw: Buffer.from('From: p@example.com\r\nTo: agent@mailroom.test\r\nSubject: q\r\n\r\nHi\r\n'),
      inboxes: [inbox],
    });
    const [received] = (await listEmails(deps, owner(), { account: inbox.address, limit: 1 })).emails;
    const source = { account: inbox.address, uid: received!.uid };
    expect(await refusalOf(replyToEmail(deps, owner(), source, { text: 'yes' }))).toBeNull();
    const draftOf = (to: string[]) => createDraft(deps, owner(), inbox.address, { to, subject: 'd' });
    const draft = await draftOf(['r@example.com', 's@example.com']);
    expect(await refusalOf(sendDraft(deps, owner(), inbox.address, draft.uid))).toBeNull();
    const over = await draftOf(['t@example.com']);
    expect((await refusalOf(sendDraft(deps, owner(), inbox.address, over.uid)))?.code).toBe('rate_limited');
  });

  it('lets no more than the limit through when sends race', async () => {
    await settings({ limits: { perHour: 3 } });
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => refusalOf(send([`r${i}@example.com`], `race ${i}`))),
    );
    expect(outcomes.filter((o) => o === null)).toHaveLength(3);
    expect(outcomes.filter((o) => o?.code === 'rate_limited')).toHaveLength(3);
    expect(await sentSubjects()).toHaveLength(3);
  });

  it('lets no more than the limit through when two nodes race (two stores, one database)', async () => {
    await settings({ limits: { perHour: 3 } });
    // A second node: its own store and group commit (its own transactions) over the same database.
    const other = buildDeps({
      mode: 'cli',
      store: createStore(deps.store.db, 'a test secret of enough length'),
      config: deps.config,
      log: deps.log,
    });
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        refusalOf(
          sendEmail(i % 2 ? other : deps, owner(), {
            from: inbox.address,
            to: [`n${i}@example.com`],
            subject: `node race ${i}`,
            text: 'hi',
          }),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === null)).toHaveLength(3);
    expect(await sentSubjects()).toHaveLength(3);
  });

  it('refuses sends while paused and still receives', async () => {
    expect((await settings({ paused: true })).paused).toBe(true);
    const refused = await refusalOf(send(['a@example.com']));
    expect(refused?.code).toBe('inbox_paused');
    await receiveMessage(deps, {
      raw: Buffer.from('From: p@example.com\r\nTo: agent@mailroom.test\r\nSubject: still in\r\n\r\nHi\r\n'),
      inboxes: [inbox],
    });
    expect(
      (await listEmails(deps, owner(), { account: inbox.address, limit: 10 })).emails.map((e) => e.subject),
    ).toEqual(['still in']);
    expect(await sentSubjects()).toEqual([]);
    await settings({ paused: false });
    expect(await refusalOf(send(['a@example.com']))).toBeNull();
  });

  it('refuses every send in read_only, and takes every mode', async () => {
    await settings({ mode: 'read_only' });
    expect((await refusalOf(send(['a@example.com'])))?.code).toBe('forbidden');
    for (const mode of ['approve_new', 'approve_all', 'autonomous'] as const) {
      await settings({ mode });
      expect((await getInboxSettings(deps, owner(), inbox.address)).mode).toBe(mode);
    }
  });

  it('needs read to see the settings and manage to change them', async () => {
    const readOnlyKey = { ...owner(), keyId: 'key_1', permissions: new Set(['read'] as const) };
    await expect(getInboxSettings(deps, readOnlyKey, inbox.address)).resolves.toBeDefined();
    await expect(updateInboxSettings(deps, readOnlyKey, inbox.address, { paused: true })).rejects.toThrow(
      /manage/,
    );
  });

  it('stops the 21st message to one address in 10 minutes and raises one event for the streak', async () => {
    await settings({ limits: { perHour: 0, perDay: 0 } });
    for (let i = 0; i < 20; i++) expect(await refusalOf(send(['loop@example.com'], `n${i}`))).toBeNull();
    const first = await refusalOf(send(['fresh@example.com'], 'cc too', ['loop@example.com']));
    expect(first?.code).toBe('loop_detected');
    expect(first?.details).toEqual([{ path: 'cc', message: expect.stringContaining('loop@example.com') }]);
    expect((first as TryLater).retryAfterSeconds).toBeGreaterThan(0);
    expect((first as TryLater).retryAfterSeconds).toBeLessThanOrEqual(600);
    expect((await refusalOf(send(['loop@example.com'])))?.code).toBe('loop_detected');
    // Another address is not held back.
    expect(await refusalOf(send(['other@example.com']))).toBeNull();
    const events = await eventsOf('inbox.loop_detected');
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.payload).data).toEqual({
      account: inbox.address,
      address: 'loop@example.com',
      count: 20,
      windowMinutes: 10,
    });
    expect((await getInboxSettings(deps, owner(), inbox.address)).sent.lastHour).toBe(21);
  });

  it('raises the event again for a new streak once the window had room in between', async () => {
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    const address = 'again@example.com';
    // A first streak, long gone: 20 sends, then a refusal that raised its event.
    await deps.store.sendLog.record(inbox.id, Array(20).fill(address), ago(30));
    await deps.store.sendLog.setLoopAlert(inbox.id, address, ago(25));
    expect(await refusalOf(send([address]))).toBeNull();
    // Counted after that send, as sends are: a row's running total follows its time.
    await deps.store.sendLog.record(inbox.id, Array(19).fill(address), new Date());
    expect((await refusalOf(send([address])))?.code).toBe('loop_detected');
    expect((await refusalOf(send([address])))?.code).toBe('loop_detected');
    expect(await eventsOf('inbox.loop_detected')).toHaveLength(1);
  });

  it('counts the window exactly around a send its server refused (forgotten), and after it', async () => {
    const now = Date.now();
    const ago = (minutes: number) => new Date(now - minutes * 60_000);
    const log = deps.store.sendLog;
    await log.record(inbox.id, ['a@example.com', 'b@example.com'], ago(90));
    await log.record(inbox.id, ['a@example.com'], ago(50));
    await log.record(inbox.id, ['b@example.com', 'c@example.com'], ago(40));
    await log.record(inbox.id, ['a@example.com'], ago(5));
    await log.forget(inbox.id, ago(40));
    await log.record(inbox.id, ['b@example.com'], ago(1));
    const counts = await log.counts(inbox.id, ago(60), ago(24 * 60));
    expect(counts).toEqual({ lastHour: 3, lastDay: 5 });
    const since = await log.perAddress(
      inbox.id,
      ['a@example.com', 'b@example.com', 'c@example.com'],
      ago(60),
    );
    expect([...since].map(([address, { count }]) => [address, count])).toEqual([
      ['a@example.com', 2],
      ['b@example.com', 1],
    ]);
  });

  it('keeps a day of sends counted through the hourly prunes, and forgets older ones', async () => {
    const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    await deps.store.sendLog.record(inbox.id, ['old@example.com', 'older@example.com'], ago(25));
    await deps.store.sendLog.record(inbox.id, ['today@example.com'], ago(23));
    await createPrunes(deps, { intervalMs: 1 }).pruneOnce();
    expect((await getInboxSettings(deps, owner(), inbox.address)).sent.lastDay).toBe(1);
    // Rows past the day were removed, not just left out of the count.
    expect(await deps.store.sendLog.prune(new Date())).toBe(0);
  });
});
