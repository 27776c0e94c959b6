import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { EventBus } from '../../src/events/bus.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { addDomain, addLocalInbox, addUser } from '../../src/mailbox/operations/admin.js';
import { createStore } from '../../src/store/index.js';
import type { InboxRow } from '../../src/store/inboxes.js';

/**
 * A mailbox's verbs without a server: an in-memory SQLite database, silent logs, and one inbox
 * at `address` (on the domain mailroom.test, of the user `owner`).
 */
export async function inProcessInbox(address: string): Promise<{ deps: MailboxDeps; inbox: InboxRow }> {
  const deps: MailboxDeps = {
    store: createStore(openDatabase({ file: ':memory:' }), 'a test secret of enough length'),
    config: loadConfig({ dataDir: '/nonexistent' }),
    bus: new EventBus(),
    log: pino({ level: 'silent' }),
  };
  await addDomain(deps, 'mailroom.test');
  await addUser(deps, 'owner');
  return { deps, inbox: await addLocalInbox(deps, address, 'owner') };
}
