import type { MailboxDeps } from '../deps.js';
import { certificateCheckOf } from '../remote-trust.js';

/** The caller's inboxes as `GET /accounts` and MCP's `list_inboxes` show them. */
export async function listAccounts(deps: MailboxDeps, userId: number) {
  return (await deps.store.inboxes.list(userId)).map((inbox) => ({
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
