import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { addDomain, addLocalInbox, addUser } from '../../src/mailbox/operations/admin.js';
import { buildDeps } from '../../src/mailbox/runtime.js';
import { createStore } from '../../src/store/index.js';
import type { InboxRow } from '../../src/store/inboxes.js';

/**
 * A mailbox's verbs without a server: an in-memory SQLite database, silent logs, and one inbox
 * at `address` (on the domain mailroom.test, of the user `owner`).
 */
export async function inProcessInbox(address: string): Promise<{ deps: MailboxDeps; inbox: InboxRow }> {
  const deps = buildDeps({
    mode: 'cli',
    store: createStore(openDatabase({ file: ':memory:' }), 'a test secret of enough length'),
    config: loadConfig({ dataDir: '/nonexistent' }),
    log: pino({ level: 'silent' }),
  });
  await addDomain(deps, 'mailroom.test');
  await addUser(deps, 'owner');
  return { deps, inbox: await addLocalInbox(deps, address, 'owner') };
}
