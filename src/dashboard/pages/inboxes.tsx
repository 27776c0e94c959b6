import type { Hono } from 'hono';
import type { AppEnv } from '../../http/context.js';
import {
  addLocalInbox,
  connectInbox,
  hostedDomainNames,
  removeInbox,
} from '../../mailbox/operations/admin.js';
import { oauthProviders } from '../../mailbox/operations/oauth-connect.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { listAccountsWithCounts } from '../../mailbox/reading/accounts.js';
import { ColumnHeads, Csrf, PostButton, Time, noticeOf, problemOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { formOf, signedIn } from '../session.js';
import { OAuthConnectPanel, registerOAuthConnect } from './inboxes-oauth.js';

interface InboxesState {
  error?: string;
  status?: number;
  /** Which form the error belongs to, and what was typed (never a password). */
  form?: 'add' | 'connect' | 'oauth';
  values?: Record<string, string>;
}

const SYNC_WORDS: Record<string, string> = {
  connecting: 'Connecting…',
  syncing: 'Syncing…',
  synced: 'Up to date',
  error: 'Sync failing',
};

async function inboxesPage(c: DashContext, session: Session, state: InboxesState = {}) {
  const deps = c.var.deps;
  const inboxes = await listAccountsWithCounts(deps, session.caller);
  const domains = await hostedDomainNames(deps);
  const providers = oauthProviders(deps);
  const v = state.values ?? {};
  const errorFor = (form: 'add' | 'connect' | 'oauth') =>
    state.form === form && state.error ? (
      <p class="error" role="alert" id={`${form}-error`}>
        {state.error}
      </p>
    ) : null;
  return renderPage(
    c,
    session,
    {
      title: 'Inboxes',
      section: 'inboxes',
      notice: noticeOf(c),
      error: state.form ? undefined : state.error,
      ...(state.status ? { status: state.status } : {}),
      // The Connect buttons' POST is answered with a redirect to the provider.
      formTargets: providers.map((p) => p.authorizationOrigin),
    },
    <>
      <h1>Inboxes</h1>
      {inboxes.length === 0 ? (
        <p class="empty">No inbox yet. Add one on a hosted domain, or connect a mailbox you already have.</p>
      ) : (
        <div class="table-wrap">
          <table class="cards-sm">
            <ColumnHeads names={['Address', 'Kind', 'Mail', 'Unread', 'Sync']} actions />
            <tbody>
              {inboxes.map((inbox) => (
                <tr>
                  <td data-label="Address">
                    <a href={`/mail?account=${encodeURIComponent(inbox.address)}`}>{inbox.address}</a>
                    {inbox.displayName ? <div class="muted small">{inbox.displayName}</div> : null}
                  </td>
                  <td data-label="Kind">{inbox.kind === 'imap' ? 'Connected (IMAP)' : 'Hosted here'}</td>
                  <td data-label="Mail">{inbox.total}</td>
                  <td data-label="Unread">{inbox.unread}</td>
                  <td data-label="Sync">
                    {inbox.sync ? (
                      <>
                        <span class={`state state-${inbox.sync.state ?? 'unknown'}`}>
                          {SYNC_WORDS[inbox.sync.state ?? ''] ?? inbox.sync.state ?? 'Unknown'}
                        </span>
                        {inbox.sync.error ? <div class="error-text small">{inbox.sync.error}</div> : null}
                        <div class="muted small">
                          Last sync <Time iso={inbox.sync.lastSyncAt} />
                        </div>
                      </>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                  <td class="actions">
                    <a href={`/inboxes/${encodeURIComponent(inbox.address)}/lists`} class="button">
                      Lists<span class="visually-hidden"> of {inbox.address}</span>
                    </a>
                    <a href={`/inboxes/${encodeURIComponent(inbox.address)}/settings`} class="button">
                      Settings<span class="visually-hidden"> of {inbox.address}</span>
                    </a>
                    <PostButton
                      session={session}
                      action="/inboxes/remove"
                      fields={{ address: inbox.address }}
                      label="Remove"
                      name={`Remove ${inbox.address}`}
                      danger
                      confirm={`Remove ${inbox.address} and all its mail here? This cannot be undone.`}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="columns">
        <section class="panel" aria-labelledby="add-title">
          <h2 id="add-title">Add an inbox</h2>
          {domains.length === 0 ? (
            <p class="muted">No domain is hosted here yet; an admin adds one on the Domains page.</p>
          ) : (
            <form method="post" action="/inboxes" class="stack">
              <Csrf session={session} />
              {errorFor('add')}
              <div class="address-field">
                <label>
                  Name before the @
                  <input
                    name="local"
                    required
                    value={v.local ?? ''}
                    placeholder="support"
                    autocomplete="off"
                  />
                </label>
                <label>
                  Domain
                  <select name="domain">
                    {domains.map((d) => (
                      <option value={d} selected={v.domain === d}>
                        @{d}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
              <label>
                Display name <span class="muted">(optional)</span>
                <input name="displayName" value={v.displayName ?? ''} maxlength={200} />
              </label>
              <button type="submit" class="primary">
                Add inbox
              </button>
            </form>
          )}
        </section>
        {providers.length > 0 ? (
          <OAuthConnectPanel
            session={session}
            providers={providers}
            address={state.form === 'oauth' ? (v.address ?? '') : ''}
            error={errorFor('oauth')}
          />
        ) : null}
        <section class="panel" aria-labelledby="connect-title">
          <h2 id="connect-title">Connect an external mailbox</h2>
          <p class="muted small">
            Mailroom syncs it over IMAP and sends through its SMTP server. The login is tried now.
          </p>
          <form method="post" action="/inboxes/connect" class="stack">
            <Csrf session={session} />
            {errorFor('connect')}
            <label>
              Address
              <input
                name="address"
                type="email"
                required
                value={v.address ?? ''}
                placeholder="me@example.com"
              />
            </label>
            <label>
              IMAP server
              <input
                name="imap"
                required
                value={v.imap ?? ''}
                placeholder="imaps://me%40example.com@imap.example.com:993"
                aria-describedby="imap-help"
              />
              <span id="imap-help" class="help">
                imaps://user@host:993 (or imap:// for plain or STARTTLS on 143)
              </span>
            </label>
            <label>
              IMAP password
              <input name="imapPassword" type="password" autocomplete="off" />
            </label>
            <label>
              SMTP server
              <input
                name="smtp"
                required
                value={v.smtp ?? ''}
                placeholder="smtps://me%40example.com@smtp.example.com:465"
                aria-describedby="smtp-help"
              />
              <span id="smtp-help" class="help">
                smtps://user@host:465, or smtp://user@host:587 with STARTTLS
              </span>
            </label>
            <label>
              SMTP password <span class="muted">(empty: the IMAP one)</span>
              <input name="smtpPassword" type="password" autocomplete="off" />
            </label>
            <button type="submit" class="primary">
              Connect mailbox
            </button>
          </form>
        </section>
      </div>
    </>,
  );
}

export function registerInboxes(app: Hono<AppEnv>): void {
  app.get(
    '/inboxes',
    signedIn((c, session) => inboxesPage(c, session)),
  );
  registerOAuthConnect(app, inboxesPage);
  app.post(
    '/inboxes',
    signedIn(async (c, session) => {
      const form = await formOf(c);
      const address = `${(form.local ?? '').trim()}@${form.domain ?? ''}`;
      try {
        await addLocalInbox(
          c.var.deps,
          address,
          session.user.id,
          (form.displayName ?? '').trim(),
          c.var.audit,
        );
      } catch (error) {
        return inboxesPage(c, session, { ...problemOf(error), form: 'add', values: form });
      }
      return c.redirect('/inboxes?done=inbox-added', 303);
    }),
  );
  app.post(
    '/inboxes/connect',
    signedIn(async (c, session) => {
      const form = await formOf(c);
      try {
        await connectInbox(
          c.var.deps,
          {
            address: form.address ?? '',
            user: session.user.id,
            by: 'user',
            imap: form.imap ?? '',
            smtp: form.smtp ?? '',
            imapPassword: form.imapPassword ?? '',
            smtpPassword: form.smtpPassword ?? '',
          },
          c.var.audit,
        );
      } catch (error) {
        const { imapPassword: _i, smtpPassword: _s, ...typed } = form;
        return inboxesPage(c, session, { ...problemOf(error), form: 'connect', values: typed });
      }
      return c.redirect('/inboxes?done=inbox-connected', 303);
    }),
  );
  app.post(
    '/inboxes/remove',
    signedIn(async (c, session) => {
      try {
        await removeInbox(c.var.deps, (await formOf(c)).address ?? '', session.user.id, c.var.audit);
      } catch (error) {
        return inboxesPage(c, session, problemOf(error));
      }
      return c.redirect('/inboxes?done=inbox-removed', 303);
    }),
  );
}
