import type { MiddlewareHandler } from 'hono';
import { startInboxFolderLookup } from '../../mailbox/access.js';
import type { AppEnv } from '../context.js';

const LIST_PATH = '/api/v1/emails';

/**
 * Starts a page of mail's first look-up (its inbox and folder, by the names in the query) beside
 * the API key's, before authentication answers: on PostgreSQL each is a round trip, and neither
 * needs the other (requireInboxFolder checks the inbox's owner against the key's user once both
 * are in). Only for `GET /emails` without `wait`, the request agents repeat most. A refused
 * request drops it unread; its failure (a database gone) is the route's to report, not this one's.
 */
export function lookAheadForList(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const account = c.req.method === 'GET' && c.req.path === LIST_PATH ? c.req.query('account') : undefined;
    if (account !== undefined && c.req.query('wait') === undefined) {
      const folder = c.req.query('folder') ?? 'INBOX';
      c.set('listLookAhead', startInboxFolderLookup(c.var.deps, account, folder));
    }
    return next();
  };
}
