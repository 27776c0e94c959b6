import type { AccountView } from '../../contract/accounts.js';
import type { Caller } from '../caller.js';
import { reachableInboxes } from '../access.js';
import type { MailboxDeps } from '../deps.js';
import { certificateCheckOf } from '../remote-trust.js';

/** The caller's inboxes (within its key's reach) as `GET /accounts` and MCP's `list_inboxes` show them. */
export async function listAccounts(deps: MailboxDeps, caller: Caller): Promise<AccountView[]> {
  return (await reachableInboxes(deps, caller)).map((inbox) => ({
    address: inbox.address,
    kind: inbox.kind,
    displayName: inbox.display_name,
    created_at: inbox.created_at,
    ...(inbox.kind === 'imap'
      ? {
          sync: {
            state: inbox.sync_state,
            error: inbox.sync_error,
            lastSyncAt: inbox.last_sync_at,
            certificates: certificateCheckOf(deps, inbox),
          },
        }
      : {}),
  }));
}

/** The caller's inboxes with how much mail each holds and how much of it is unread (all folders). */
export async function listAccountsWithCounts(deps: MailboxDeps, caller: Caller) {
  const accounts = await listAccounts(deps, caller);
  const inboxes = await reachableInboxes(deps, caller);
  return Promise.all(
    accounts.map(async (account) => {
      const inbox = inboxes.find((i) => i.address === account.address)!;
      const folders = await deps.store.folders.listWithCounts(inbox.id);
      const sum = (key: 'total' | 'unread') => folders.reduce((n, f) => n + Number(f[key]), 0);
      return { ...account, total: sum('total'), unread: sum('unread') };
    }),
  );
}
