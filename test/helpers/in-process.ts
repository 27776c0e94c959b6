import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { addDomain, addLocalInbox, addUser } from '../../src/mailbox/operations/admin.js';
import { buildDeps } from '../../src/mailbox/runtime.js';
import { createStore } from '../../src/store/index.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { onPostgres } from './server.js';
import { testPostgres } from './test-postgres.js';

/**
 * A mailbox's verbs without a server, on the project's engine: an in-memory SQLite database, or
 * on PostgreSQL a copy of the run's migrated template; silent logs, and one inbox at `address`
 * (on the domain mailroom.test, of the user `owner`). `close` drops what it opened.
 */
export async function inProcessInbox(
  address: string,
): Promise<{ deps: MailboxDeps; inbox: InboxRow; close(): Promise<void> }> {
  const databases = onPostgres ? await testPostgres() : undefined;
  const url = await databases?.createDatabase({ migrated: true });
  const db = url ? await openPostgres(url) : openDatabase({ file: ':memory:' });
  const deps = buildDeps({
    mode: 'cli',
    store: createStore(db, 'a test secret of enough length'),
    config: loadConfig({ dataDir: '/nonexistent' }),
    log: pino({ level: 'silent' }),
  });
  await addDomain(deps, 'mailroom.test');
  await addUser(deps, 'owner');
  const close = async () => {
    await db.close();
    if (url) await databases!.dropDatabase(url);
  };
  return { deps, inbox: await addLocalInbox(deps, address, 'owner'), close };
}
