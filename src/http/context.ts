import type { AuditContext } from '../mailbox/audit/audit-context.js';
import type { KeyCaller } from '../mailbox/caller.js';
import type { InboxFolderLookup } from '../mailbox/access.js';
import type { MailboxDeps } from '../mailbox/deps.js';
import type { WindowCount } from '../store/rate-windows.js';

export interface AppEnv {
  Variables: {
    /** The key acting and its reach (middleware/auth.ts). */
    caller: KeyCaller;
    deps: MailboxDeps;
    /** The request's inbox, from the query or the JSON body (validateRequest). */
    account: string;
    /** X-Request-Id of this request (middleware/request-log.ts), in its log lines. */
    requestId: string;
    /** Set when a stream token (`GET /events?token=`) authenticated the request: the inbox it is for, or null for all. */
    streamTokenAccount?: string | null;
    /** The request's count in its key's rate window, where the key's look-up made it (ApiRate.authenticate). */
    rateCount?: WindowCount;
    /** A list's inbox and folder look-up, started beside the key's (middleware/look-ahead.ts). */
    listLookAhead?: InboxFolderLookup;
    /** This request's audit record, on a route that changes state (route-audit.ts). */
    audit?: AuditContext;
  };
}
