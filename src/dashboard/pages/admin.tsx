import type { Hono } from 'hono';
import type { AppEnv } from '../../http/context.js';
import {
  addDomain,
  addUser,
  domainView,
  listDomains,
  listUsers,
  removeDomain,
  removeUser,
} from '../../mailbox/operations/admin.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { SIGN_IN_LINK_MS, createSignInLink } from '../../mailbox/operations/sign-in.js';
import { ColumnHeads, Copyable, Csrf, PostButton, Time, noticeOf, problemOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { baseUrlOf, formOf, formPost, signedIn } from '../session.js';

type State = {
  error?: string;
  status?: number;
  /** A one-time sign-in link just made for a user: shown once, never in a URL of this page. */
  link?: { name: string; url: string };
};

async function domainsPage(c: DashContext, session: Session, state: State = {}) {
  const deps = c.var.deps;
  const domains = (await listDomains(deps)).map((d) => domainView(d, deps.config.hostname));
  return renderPage(
    c,
    session,
    {
      title: 'Domains',
      section: 'domains',
      notice: noticeOf(c),
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <>
      <h1>Domains</h1>
      <p class="lead">Mail for these domains is received here. Publish each one's records at its DNS host.</p>
      {domains.length === 0 ? <p class="empty">No domain hosted yet.</p> : null}
      {domains.map((d) => (
        <section class="panel">
          <h2>{d.name}</h2>
          <div class="table-wrap">
            <table class="dns cards-sm">
              <caption class="visually-hidden">DNS records of {d.name}</caption>
              <ColumnHeads names={['Type', 'Name', 'Value']} />
              <tbody>
                {d.dnsRecords.map((r) => (
                  <tr>
                    <td data-label="Type">{r.type}</td>
                    <td data-label="Name">
                      <code class="wrap">{r.name}</code>
                    </td>
                    <td data-label="Value">
                      <code class="wrap">{r.value}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <PostButton
            session={session}
            action="/domains/remove"
            fields={{ name: d.name }}
            label="Remove domain"
            danger
            confirm={`Stop hosting ${d.name}?`}
          />
        </section>
      ))}
      <section class="panel">
        <h2>Host a domain</h2>
        <form method="post" action="/domains" class="inline-form">
          <Csrf session={session} />
          <label>
            Domain
            <input name="domain" required placeholder="agents.example.com" />
          </label>
          <button type="submit" class="primary">
            Add domain
          </button>
        </form>
      </section>
    </>,
  );
}

async function usersPage(c: DashContext, session: Session, state: State = {}) {
  const users = await listUsers(c.var.deps);
  return renderPage(
    c,
    session,
    {
      title: 'Users',
      section: 'users',
      notice: noticeOf(c),
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <>
      <h1>Users</h1>
      {state.link ? (
        <section class="panel reveal" aria-labelledby="new-link">
          <h2 id="new-link">A sign-in link for {state.link.name}</h2>
          <p>
            Give it to {state.link.name} privately: it signs in once, within {SIGN_IN_LINK_MS / 60_000}{' '}
            minutes, with no password. It is shown only this once.
          </p>
          <Copyable
            id="new-link-value"
            value={state.link.url}
            button="Copy link"
            wrap
            testId="sign-in-link"
          />
        </section>
      ) : null}
      <div class="table-wrap">
        <table class="cards-sm">
          <ColumnHeads names={['Name', 'Role', 'Created']} actions />
          <tbody>
            {users.map((u) => (
              <tr>
                <td data-label="Name">{u.name}</td>
                <td data-label="Role">{u.admin ? 'Admin' : 'User'}</td>
                <td data-label="Created">
                  <Time iso={u.created_at} />
                </td>
                <td class="actions">
                  {u.id === session.user.id ? (
                    <span class="muted small">you</span>
                  ) : (
                    <>
                      <PostButton
                        session={session}
                        action="/users/link"
                        fields={{ id: String(u.id) }}
                        label="Sign-in link"
                        name={`Sign-in link for ${u.name}`}
                      />
                      <PostButton
                        session={session}
                        action="/users/remove"
                        fields={{ id: String(u.id) }}
                        label="Remove"
                        name={`Remove user ${u.name}`}
                        danger
                        confirm={`Remove ${u.name} with its inboxes, mail, keys and webhooks?`}
                      />
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <section class="panel">
        <h2>Add a user</h2>
        <form method="post" action="/users" class="stack">
          <Csrf session={session} />
          <label>
            Name
            <input name="name" required autocomplete="off" />
          </label>
          <label>
            Password <span class="muted">(8 characters or more)</span>
            <input name="password" type="password" required minlength={8} autocomplete="new-password" />
          </label>
          <label class="check">
            <input type="checkbox" name="admin" value="1" /> Admin (sees these pages)
          </label>
          <button type="submit" class="primary">
            Add user
          </button>
        </form>
      </section>
    </>,
  );
}

export function registerAdminPages(app: Hono<AppEnv>): void {
  const admin = { admin: true };
  app.get(
    '/domains',
    signedIn((c, s) => domainsPage(c, s), admin),
  );
  app.get(
    '/users',
    signedIn((c, s) => usersPage(c, s), admin),
  );
  const act = (
    path: string,
    page: typeof domainsPage,
    run: (c: DashContext, form: Record<string, string>) => Promise<string>,
  ) =>
    app.post(
      path,
      formPost(page, (c, _session, form) => run(c, form), admin),
    );
  act('/domains', domainsPage, async (c, form) => {
    await addDomain(c.var.deps, form.domain ?? '', c.var.audit);
    return '/domains?done=domain-added';
  });
  act('/domains/remove', domainsPage, async (c, form) => {
    await removeDomain(c.var.deps, form.name ?? '', c.var.audit);
    return '/domains?done=domain-removed';
  });
  act('/users', usersPage, async (c, form) => {
    await addUser(
      c.var.deps,
      (form.name ?? '').trim(),
      {
        password: form.password ?? '',
        admin: form.admin === '1',
      },
      c.var.audit,
    );
    return '/users?done=user-added';
  });
  // Answered as a page, not a redirect: the link must not travel in a URL or the history.
  app.post(
    '/users/link',
    signedIn(async (c, session) => {
      try {
        const { token, user } = await createSignInLink(c.var.deps, Number((await formOf(c)).id) || 0);
        return await usersPage(c, session, {
          link: { name: user.name, url: `${baseUrlOf(c)}/sign-in/link/${token}` },
        });
      } catch (error) {
        return usersPage(c, session, problemOf(error));
      }
    }, admin),
  );
  act('/users/remove', usersPage, async (c, form) => {
    await removeUser(c.var.deps, Number(form.id) || 0, c.var.audit);
    return '/users?done=user-removed';
  });
}
