import type { Hono } from 'hono';
import type { AppEnv } from '../../http/context.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { listAccounts } from '../../mailbox/reading/accounts.js';
import { listEmails, listFolders } from '../../mailbox/reading/read.js';
import { noticeOf, problemOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { signedIn } from '../session.js';
import { MessageRow, q } from './mail-parts.js';

const PAGE_SIZE = 50;

/** Folders of one inbox, with unread counts, and the other inboxes to switch to. */
async function MailSidebar(props: { c: DashContext; session: Session; account: string; folder: string }) {
  const { c, session, account, folder } = props;
  const deps = c.var.deps;
  const accounts = await listAccounts(deps, session.caller);
  const folders = await listFolders(deps, session.caller, account);
  return (
    <nav class="sidebar" aria-label="Folders">
      {accounts.length > 1 ? (
        <form method="get" action="/mail" class="inbox-switch">
          <label>
            Inbox
            <select name="account" data-autosubmit="">
              {accounts.map((a) => (
                <option value={a.address} selected={a.address === account}>
                  {a.address}
                </option>
              ))}
            </select>
          </label>
          <noscript>
            <button type="submit">Open</button>
          </noscript>
        </form>
      ) : (
        <p class="inbox-name">{account}</p>
      )}
      <a class="button primary compose" href={`/compose${q({ account })}`}>
        Compose
      </a>
      <ul class="folders">
        {folders.map((f) => (
          <li>
            <a
              href={`/mail${q({ account, folder: f.name })}`}
              aria-current={f.name.toLowerCase() === folder.toLowerCase() ? 'page' : undefined}
            >
              <span>{f.name}</span>
              {f.unread > 0 ? (
                <span class="count" data-folder-unread={f.name}>
                  {f.unread}
                  <span class="visually-hidden"> unread</span>
                </span>
              ) : null}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function registerMailList(app: Hono<AppEnv>): void {
  app.get(
    '/mail',
    signedIn(async (c, session) => {
      const deps = c.var.deps;
      const accounts = await listAccounts(deps, session.caller);
      const account = c.req.query('account') ?? accounts[0]?.address;
      if (!account) {
        return renderPage(
          c,
          session,
          { title: 'Mail', section: 'mail' },
          <div class="empty-page">
            <h1>No inbox yet</h1>
            <p>
              Mail arrives in inboxes. <a href="/inboxes">Add an inbox or connect a mailbox</a> to start.
            </p>
          </div>,
        );
      }
      const folder = c.req.query('folder') ?? 'INBOX';
      const search = c.req.query('q')?.trim() ?? '';
      const unread = c.req.query('unread') === '1';
      const cursor = c.req.query('cursor');
      let listed;
      try {
        listed = await listEmails(deps, session.caller, {
          account,
          folder,
          limit: PAGE_SIZE,
          unread: unread || undefined,
          ...(search ? { q: search } : {}),
          ...(cursor ? { cursor } : {}),
        });
      } catch (error) {
        const { error: message, status } = problemOf(error);
        return renderPage(c, session, { title: 'Mail', section: 'mail', error: message, status }, null);
      }
      const drafts = folder.toLowerCase() === 'drafts';
      const filtered = search !== '' || unread;
      // New mail is added live only where it would show: the first page of INBOX, unfiltered.
      const live = folder.toUpperCase() === 'INBOX' && !filtered && !cursor;
      return renderPage(
        c,
        session,
        { title: `${folder} · ${account}`, section: 'mail', notice: noticeOf(c) },
        <div class="mail">
          {await MailSidebar({ c, session, account, folder })}
          <section class="list" aria-labelledby="list-title">
            <div class="list-head">
              <h1 id="list-title">{folder}</h1>
              <form method="get" action="/mail" class="search" role="search">
                <input type="hidden" name="account" value={account} />
                <input type="hidden" name="folder" value={folder} />
                <label class="visually-hidden" for="q">
                  Search this folder
                </label>
                <input id="q" name="q" type="search" value={search} placeholder="Search mail" />
                <label class="check">
                  <input type="checkbox" name="unread" value="1" checked={unread} /> Unread only
                </label>
                <button type="submit">Search</button>
              </form>
            </div>
            <p class="visually-hidden" aria-live="polite" id="live-status"></p>
            {listed.emails.length === 0 ? (
              <p class="empty" id="empty-list">
                {filtered
                  ? 'Nothing matches. Try other words, or clear the filter.'
                  : live
                    ? 'No mail yet. New mail appears here as it arrives.'
                    : 'This folder is empty.'}
              </p>
            ) : null}
            <ul
              class="messages"
              id="messages"
              {...(live ? { 'data-live': `/mail/live${q({ account })}`, 'data-account': account } : {})}
            >
              {listed.emails.map((email) => (
                <MessageRow account={account} email={email} drafts={drafts} />
              ))}
            </ul>
            <div class="pager">
              {cursor ? (
                <a href={`/mail${q({ account, folder, q: search, unread: unread && '1' })}`}>Newest</a>
              ) : null}
              {listed.nextCursor ? (
                <a
                  href={`/mail${q({ account, folder, q: search, unread: unread && '1', cursor: listed.nextCursor })}`}
                >
                  Older mail
                </a>
              ) : null}
            </div>
          </section>
        </div>,
      );
    }),
  );
}
