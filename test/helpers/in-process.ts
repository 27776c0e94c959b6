import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { testDkimKey } from './test-dkim-key.js';
import type { SendMailOptions } from 'nodemailer';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { WebhookDispatcher } from '../../src/events/dispatcher.js';
import type { DispatcherOptions } from '../../src/events/dispatcher.js';
import type { ConfigOverrides } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { ownerCaller } from '../../src/mailbox/caller.js';
import type { Caller } from '../../src/mailbox/caller.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { receiveMessage } from '../../src/mailbox/ingest/receive.js';
import type { Filed } from '../../src/mailbox/ingest/receive.js';
import { addDomain, addLocalInbox, addUser } from '../../src/mailbox/operations/admin.js';
import { buildDeps } from '../../src/mailbox/runtime.js';
import { createStore } from '../../src/store/index.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { onPostgres } from './server.js';
import { testPostgres } from './test-postgres.js';

/**
 * Who the verbs act for, as their argument after deps: the inbox's owner acting for themselves.
 * The one place that says how a test names its caller, so a change of the verbs' signature is
 * made here.
 */
export type Who = Caller;
export const whoOwns = (inbox: InboxRow): Who => ownerCaller(inbox.user_id);

/** Where and when delivered mail arrives: this inbox and now, unless said. */
export interface Arrival {
  to?: InboxRow[];
  receivedAt?: Date;
}

export interface InProcess {
  deps: MailboxDeps;
  inbox: InboxRow;
  /** The inbox's owner, as the verbs take them. */
  who: Who;
  /** Another user (made when `user` is new) with a local inbox at `address`. */
  addInbox(address: string, user: string): Promise<{ inbox: InboxRow; who: Who }>;
  /** Mail arriving as over SMTP, built from nodemailer's fields, for `to` (this inbox when not given). */
  deliver(mail: SendMailOptions, arrival?: Arrival): Promise<Filed[]>;
  deliverRaw(raw: string | Buffer, arrival?: Arrival): Promise<Filed[]>;
  close(): Promise<void>;
}

/**
 * A mailbox's verbs without a server, on the project's engine: an in-memory SQLite database, or
 * on PostgreSQL a copy of the run's migrated template; silent logs, and one inbox at `address`
 * (on the domain mailroom.test, of the user `owner`). `close` drops what it opened.
 */
export async function inProcessInbox(address: string, settings: ConfigOverrides = {}): Promise<InProcess> {
  const databases = onPostgres ? await testPostgres() : undefined;
  const url = await databases?.createDatabase({ migrated: true });
  const db = url ? await openPostgres(url) : openDatabase({ file: ':memory:' });
  const deps = buildDeps({
    mode: 'cli',
    store: createStore(db, 'a test secret of enough length'),
    config: loadConfig({ dataDir: '/nonexistent', ...settings }),
    log: pino({ level: 'silent' }),
  });
  await addDomain(deps, 'mailroom.test', undefined, { privateKey: await testDkimKey() });
  await addUser(deps, 'owner');
  const inbox = await addLocalInbox(deps, address, 'owner');
  const deliverRaw = (raw: string | Buffer, { to = [inbox], receivedAt }: Arrival = {}) =>
    receiveMessage(deps, { raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw), inboxes: to, receivedAt });
  return {
    deps,
    inbox,
    who: whoOwns(inbox),
    async addInbox(other, user) {
      if (!(await deps.store.users.find(user))) await addUser(deps, user);
      const added = await addLocalInbox(deps, other, user);
      return { inbox: added, who: whoOwns(added) };
    },
    async deliver(mail, arrival) {
      return deliverRaw(await new MailComposer(mail).compile().build(), arrival);
    },
    deliverRaw,
    async close() {
      await db.close();
      if (url) await databases!.dropDatabase(url);
    },
  };
}

/** What a verb's call threw, to assert on; the string 'no error' when it did not throw. */
export const refusal = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => 'no error',
    (error: unknown) => error,
  );

/**
 * The server's webhook dispatcher over these deps' store and bus, started, posting anywhere (the
 * receivers are on loopback); `stop` it at the end.
 */
export function startDispatcher(
  deps: MailboxDeps,
  options: Partial<DispatcherOptions> = {},
): WebhookDispatcher {
  const dispatcher = new WebhookDispatcher({
    store: deps.store,
    bus: deps.bus,
    log: deps.log,
    reach: 'any',
    ...options,
  });
  dispatcher.start();
  return dispatcher;
}
