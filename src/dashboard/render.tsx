import type { Child, FC } from 'hono/jsx';
import type { Context } from 'hono';
import type { AppEnv } from '../http/context.js';
import type { ContractErrorCode } from '../contract/error-codes.js';
import { statusOfCode } from '../http/errors.js';
import { mailroomErrorOf } from '../mailbox/errors.js';
import { countApprovals } from '../mailbox/approvals/approvals.js';
import type { Session } from '../mailbox/operations/sign-in.js';
import { assetUrl } from './assets.js';
import { noteRefusal } from './audit.js';

/** Pages run only the dashboard's own script and style; nothing may frame them. */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self'; " +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

export type Section =
  | 'mail'
  | 'inboxes'
  | 'keys'
  | 'webhooks'
  | 'labels'
  | 'lists'
  | 'suppressions'
  | 'approvals'
  | 'activity'
  | 'domains'
  | 'users'
  | 'none';

export interface PageMeta {
  title: string;
  section: Section;
  /** A confirmation above the content (what was just done). */
  notice?: string | undefined;
  /** What went wrong, in plain words, above the content. */
  error?: string | undefined;
  status?: number;
  /** Other origins this page's forms may lead to (a POST answered with a redirect there). */
  formTargets?: string[];
}

const NAV: { section: Section; href: string; label: string; admin?: boolean }[] = [
  { section: 'mail', href: '/mail', label: 'Mail' },
  { section: 'approvals', href: '/approvals', label: 'Approvals' },
  { section: 'inboxes', href: '/inboxes', label: 'Inboxes' },
  { section: 'keys', href: '/keys', label: 'API keys' },
  { section: 'webhooks', href: '/webhooks', label: 'Webhooks' },
  { section: 'labels', href: '/labels', label: 'Labels' },
  { section: 'lists', href: '/lists', label: 'Lists' },
  { section: 'suppressions', href: '/suppressions', label: 'Suppressions' },
  { section: 'activity', href: '/activity', label: 'Activity' },
  { section: 'domains', href: '/domains', label: 'Domains', admin: true },
  { section: 'users', href: '/users', label: 'Users', admin: true },
];

/** The hidden field every state-changing form carries. */
export const Csrf: FC<{ session: Session }> = ({ session }) => (
  <input type="hidden" name="_csrf" value={session.csrfToken} />
);

/** A value shown once with a button that copies it (the script copies the code's text). */
export const Copyable: FC<{ id: string; value: string; button: string; wrap?: boolean; testId?: string }> = ({
  id,
  value,
  button,
  wrap,
  testId,
}) => (
  <div class="copyable">
    <code id={id} {...(wrap ? { class: 'wrap' } : {})} {...(testId ? { 'data-testid': testId } : {})}>
      {value}
    </code>
    <button type="button" class="copy" data-copy={id}>
      {button}
    </button>
  </div>
);

/** A table's column heads; `actions` adds a last column of buttons, named for screen readers only. */
export const ColumnHeads: FC<{ names: string[]; actions?: boolean }> = ({ names, actions }) => (
  <thead>
    <tr>
      {names.map((name) => (
        <th scope="col">{name}</th>
      ))}
      {actions ? (
        <th scope="col">
          <span class="visually-hidden">Actions</span>
        </th>
      ) : null}
    </tr>
  </thead>
);

/** A form that is one button: an action on one thing (revoke, remove, enable...), with its fields. */
export const PostButton: FC<{
  session: Session;
  action: string;
  label: string;
  fields?: Record<string, string>;
  danger?: boolean;
  primary?: boolean;
  /** What the script asks before sending (without the script the form is sent at once). */
  confirm?: string;
  /** The button's accessible name, when the visible label needs its object ("Remove" what). */
  name?: string;
}> = ({ session, action, label, fields, danger, primary, confirm, name }) => (
  <form method="post" action={action}>
    <Csrf session={session} />
    {Object.entries(fields ?? {}).map(([key, value]) => (
      <input type="hidden" name={key} value={value} />
    ))}
    <button
      type="submit"
      class={danger ? 'danger' : primary ? 'primary' : undefined}
      {...(confirm ? { 'data-confirm': confirm } : {})}
      {...(name ? { 'aria-label': name } : {})}
    >
      {label}
    </button>
  </form>
);

const Layout: FC<{ session: Session | null; meta: PageMeta; waiting: number; children?: Child }> = ({
  session,
  meta,
  waiting,
  children,
}) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${meta.title} · Mailroom`}</title>
      <link rel="stylesheet" href={assetUrl('dashboard.css')} />
      <script src={assetUrl('dashboard.js')} defer></script>
      {session ? <meta name="csrf-token" content={session.csrfToken} /> : null}
    </head>
    <body>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          Mailroom
        </a>
        {session ? (
          <nav aria-label="Sections">
            <ul>
              {NAV.filter((n) => !n.admin || session.user.admin).map((n) => (
                <li>
                  <a href={n.href} aria-current={n.section === meta.section ? 'page' : undefined}>
                    {n.label}
                    {n.section === 'approvals' && waiting > 0 ? ' ' : null}
                    {n.section === 'approvals' && waiting > 0 ? (
                      <span class="count" data-testid="approvals-count">
                        {waiting}
                        <span class="visually-hidden"> waiting</span>
                      </span>
                    ) : null}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        {session ? (
          <form class="signout" method="post" action="/sign-out">
            <Csrf session={session} />
            <span class="who">{session.user.name}</span>
            <button type="submit" class="link">
              Sign out
            </button>
          </form>
        ) : null}
      </header>
      <main id="main" tabindex={-1}>
        {meta.notice ? (
          <p class="notice" role="status">
            {meta.notice}
          </p>
        ) : null}
        {meta.error ? (
          <p class="error" role="alert">
            {meta.error}
          </p>
        ) : null}
        {children}
      </main>
    </body>
  </html>
);

/** The HTML of a JSX tree (async components included). */
export async function htmlOf(node: Child): Promise<string> {
  return String(await Promise.resolve((node as { toString(): string | Promise<string> }).toString()));
}

/** A whole page: HTML with the page CSP, never cached (it shows a person's mail). */
export async function renderPage(
  c: Context<AppEnv>,
  session: Session | null,
  meta: PageMeta,
  body: Child,
): Promise<Response> {
  // The count of sends waiting for a person, in the navigation; a page about a failing store still renders.
  const waiting = session ? await countApprovals(c.var.deps, session.caller).catch(() => 0) : 0;
  const html = `<!doctype html>${await htmlOf(
    <Layout session={session} meta={meta} waiting={waiting}>
      {body}
    </Layout>,
  )}`;
  const targets = meta.formTargets?.length ? ` ${meta.formTargets.join(' ')}` : '';
  c.header('Content-Security-Policy', PAGE_CSP.replace("form-action 'self'", `form-action 'self'${targets}`));
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'same-origin');
  return c.html(html, (meta.status ?? 200) as 200);
}

/** A page that only says what went wrong, with the status the API gives that code. */
export function errorPage(
  c: Context<AppEnv>,
  session: Session | null,
  code: ContractErrorCode,
  message: string,
): Promise<Response> {
  noteRefusal(code);
  return renderPage(
    c,
    session,
    { title: 'Something went wrong', section: 'none', error: message, status: statusOfCode(code) },
    <p>
      <a href="/">Back to the dashboard</a>
    </p>,
  );
}

/** A mailbox error's words and status; any other error is thrown on (the app's handler logs it). */
export function problemOf(error: unknown): { error: string; status: number } {
  const known = mailroomErrorOf(error);
  if (!known) throw error;
  noteRefusal(known.code);
  const detail = known.details?.[0]?.message;
  const message = detail && !known.message.includes(detail) ? `${known.message}: ${detail}` : known.message;
  return { error: capitalise(message), status: statusOfCode(known.code) };
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Notices a redirect after a POST names by a short code (`?done=`), so a URL cannot put words on a page. */
const NOTICES: Record<string, string> = {
  'key-revoked': 'The key was revoked. Requests with it are refused from now on.',
  'inbox-added': 'The inbox was added.',
  'inbox-connected': 'The mailbox is connected. Its mail appears as the first sync goes on.',
  'oauth-connected':
    'The mailbox is connected with the access the provider gave (no password is kept). Its mail appears as the first sync goes on.',
  'inbox-removed': 'The inbox and its mail were removed.',
  'label-created': 'The label was created.',
  'settings-saved': "The inbox's settings were saved. They hold for its next send.",
  'label-saved': 'The label was saved.',
  'label-deleted': 'The label was deleted.',
  'list-added': 'The entry was added.',
  'list-removed': 'The entry was removed.',
  'suppression-lifted': 'The suppression was lifted: mail may be sent to the address again.',
  'webhook-saved': 'The webhook was saved.',
  'webhook-deleted': 'The webhook was deleted.',
  'webhook-test': 'A test event was queued; its delivery shows below once it is attempted.',
  'webhook-enabled': 'The webhook is enabled.',
  'webhook-disabled': 'The webhook is disabled: no events are sent to it.',
  sent: 'Sent.',
  'pending-approval': 'Not sent yet: it waits in Outbox for a person to approve it (Approvals).',
  scheduled: 'Not sent yet: it waits in Outbox for the time you chose.',
  'approval-approved': 'Approved.',
  'approval-rejected': 'Rejected: the message is back in Drafts.',
  'send-cancelled': 'Cancelled: the message is back in Drafts, not sent.',
  'draft-saved': 'The draft was saved.',
  moved: 'Moved.',
  'marked-unread': 'Marked unread.',
  deleted: 'Deleted.',
  'domain-added': 'The domain was added. Publish its DNS records below.',
  'domain-removed': 'The domain was removed.',
  'user-added': 'The user was added.',
  'user-removed': 'The user was removed.',
  signedout: 'You are signed out.',
};

export function noticeOf(c: Context<AppEnv>): string | undefined {
  const done = c.req.query('done');
  return done ? NOTICES[done] : undefined;
}

/** Dates as a person reads them, in UTC; dashboard.js rewrites each `<time>` in the reader's zone. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)}`;
}

export const Time: FC<{ iso: string | null | undefined }> = ({ iso }) =>
  iso ? <time datetime={iso}>{when(iso)}</time> : <span class="muted">never</span>;
