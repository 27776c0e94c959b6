import type { Hono } from 'hono';
import type { AppEnv } from '../../http/context.js';
import { listLabels } from '../../mailbox/organising/labels.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import type { EmailView } from '../../mailbox/reading/email-view.js';
import { listFolders, readAttachment, readEmail, readRaw, readThread } from '../../mailbox/reading/read.js';
import { Csrf, PostButton, htmlOf, noticeOf, problemOf, renderPage, when } from '../render.js';
import type { DashContext } from '../session.js';
import { signedIn } from '../session.js';
import { DeliveryStatuses } from './mail-delivery.js';
import { LabelChip, MessageRow, messageUrl, q } from './mail-parts.js';
import { SpamVerdict } from './mail-spam.js';
import { ScreeningFindings, ScreeningVerdict } from './mail-screening.js';

/** The HTML sanitiser, loaded when a message is first read (sanitize-html: ~2 MB of heap a server need not hold). */
const safeHtml = () => import('../safe-html.js');

/** Inline images larger than this together are left out of the document (a link to each remains). */
const INLINE_IMAGES_MAX_BYTES = 5 * 1024 * 1024;

function uidOf(c: DashContext): number {
  const uid = Number(c.req.query('uid'));
  return Number.isSafeInteger(uid) && uid > 0 ? uid : 0;
}

interface AuthSummary {
  spf?: string;
  dkim?: { domain: string; result: string }[];
  dmarc?: { result: string };
}

const AuthResults = ({ results }: { results: unknown }) => {
  if (!results || typeof results !== 'object') return <span class="muted">not checked</span>;
  const r = results as AuthSummary;
  const verdict = (name: string, result: string | undefined) => (
    <span class={`verdict verdict-${result === 'pass' ? 'pass' : result === 'fail' ? 'fail' : 'other'}`}>
      {name} {result ?? 'none'}
    </span>
  );
  return (
    <span class="verdicts">
      {verdict('SPF', r.spf)}
      {verdict('DKIM', r.dkim?.[0]?.result)}
      {verdict('DMARC', r.dmarc?.result)}
    </span>
  );
};

const Addresses = ({ list }: { list: string[] }) => <>{list.length ? list.join(', ') : '—'}</>;

async function readerPage(c: DashContext, session: Session, account: string, email: EmailView) {
  const deps = c.var.deps;
  const images = c.req.query('images') === '1';
  const folders = await listFolders(deps, session.caller, account);
  const labels = (await listLabels(deps, session.caller, 200)).labels;
  const unread = !email.flags.includes('\\Seen');
  const flagged = email.flags.includes('\\Flagged');
  const hasHtml = (email.html ?? '') !== '';
  const { hasRemoteImages, sanitizeMailHtml } = await safeHtml();
  const remote = hasHtml && hasRemoteImages(sanitizeMailHtml(email.html!));
  const ref = { account, uid: email.uid };
  const action = (name: string, label: string) => (
    <PostButton
      session={session}
      action="/mail/message/update"
      fields={{ account, uid: String(email.uid), action: name }}
      label={label}
    />
  );
  const unlabelled = labels.filter((l) => !email.labels.some((m) => m.id === l.id));
  return renderPage(
    c,
    session,
    { title: email.subject || '(no subject)', section: 'mail', notice: noticeOf(c) },
    <article class="reader" data-mark-read={unread ? String(email.uid) : undefined} data-account={account}>
      <p class="back">
        <a href={`/mail${q({ account, folder: email.folder })}`}>← {email.folder}</a>
      </p>
      <h1 class="subject">{email.subject || '(no subject)'}</h1>
      <div class="toolbar" role="group" aria-label="Message actions">
        <a class="button" href={`/compose${q({ account, mode: 'reply', uid: email.uid })}`}>
          Reply
        </a>
        <a class="button" href={`/compose${q({ account, mode: 'reply-all', uid: email.uid })}`}>
          Reply all
        </a>
        <a class="button" href={`/compose${q({ account, mode: 'forward', uid: email.uid })}`}>
          Forward
        </a>
        {email.folder === 'Spam' ? (
          <PostButton
            session={session}
            action="/mail/message/update"
            fields={{ account, uid: String(email.uid), action: 'move', folder: 'INBOX' }}
            label="Not spam"
          />
        ) : null}
        {unread ? action('read', 'Mark read') : action('unread', 'Mark unread')}
        {flagged ? action('unflag', 'Unflag') : action('flag', 'Flag')}
        {email.folder === 'Outbox' ? (
          // A waiting send leaves Outbox by going, by a decision, or by this (never moved or deleted).
          <PostButton
            session={session}
            action="/mail/message/cancel"
            fields={{ account, uid: String(email.uid) }}
            label="Cancel send"
            danger
          />
        ) : (
          <>
            <form method="post" action="/mail/message/update" class="move">
              <Csrf session={session} />
              <input type="hidden" name="account" value={account} />
              <input type="hidden" name="uid" value={String(email.uid)} />
              <input type="hidden" name="action" value="move" />
              <label>
                <span class="visually-hidden">Move to folder</span>
                <select name="folder">
                  {folders
                    .filter(
                      (f) =>
                        f.name !== email.folder && f.specialUse !== '\\Drafts' && f.specialUse !== '\\Outbox',
                    )
                    .map((f) => (
                      <option value={f.name}>{f.name}</option>
                    ))}
                </select>
              </label>
              <button type="submit">Move</button>
            </form>
            <PostButton
              session={session}
              action="/mail/message/delete"
              fields={{ from: email.folder, account, uid: String(email.uid) }}
              label={email.folder === 'Trash' ? 'Delete for good' : 'Delete'}
              danger
            />
          </>
        )}
      </div>
      {email.rejectedReason ? (
        <p class="notice" data-testid="rejected-reason">
          Not sent, back in Drafts: {email.rejectedReason}
        </p>
      ) : null}
      <dl class="headers">
        <dt>From</dt>
        <dd>{email.fromName ? `${email.fromName} <${email.from}>` : email.from}</dd>
        <dt>To</dt>
        <dd>
          <Addresses list={email.to} />
        </dd>
        {email.cc.length ? (
          <>
            <dt>Cc</dt>
            <dd>
              <Addresses list={email.cc} />
            </dd>
          </>
        ) : null}
        <dt>Date</dt>
        <dd>
          <time datetime={email.date} data-zone>
            {when(email.date)} UTC
          </time>
        </dd>
        {email.delivery?.length ? (
          <>
            <dt>Delivery</dt>
            <dd>
              <DeliveryStatuses delivery={email.delivery} />
            </dd>
          </>
        ) : null}
        <dt>Checks</dt>
        <dd>
          <AuthResults results={email.authResults} />
        </dd>
        {email.spam || email.folder === 'Spam' ? (
          <>
            <dt>Spam</dt>
            <dd>
              <SpamVerdict spam={email.spam} />
            </dd>
          </>
        ) : null}
        <dt>Screening</dt>
        <dd>
          <ScreeningVerdict screening={email.screening} />
        </dd>
        <dt>Labels</dt>
        <dd class="labels">
          {email.labels.map((l) => (
            <form method="post" action="/mail/message/label" class="chip-form">
              <Csrf session={session} />
              <input type="hidden" name="account" value={account} />
              <input type="hidden" name="uid" value={String(email.uid)} />
              <input type="hidden" name="label" value={l.id} />
              <input type="hidden" name="op" value="remove" />
              <LabelChip label={l} />
              <button type="submit" class="chip-x" aria-label={`Remove label ${l.name}`}>
                ×
              </button>
            </form>
          ))}
          {unlabelled.length ? (
            <form method="post" action="/mail/message/label" class="inline-form small">
              <Csrf session={session} />
              <input type="hidden" name="account" value={account} />
              <input type="hidden" name="uid" value={String(email.uid)} />
              <input type="hidden" name="op" value="add" />
              <label>
                <span class="visually-hidden">Label to add</span>
                <select name="label">
                  {unlabelled.map((l) => (
                    <option value={l.id}>{l.name}</option>
                  ))}
                </select>
              </label>
              <button type="submit">Add label</button>
            </form>
          ) : email.labels.length === 0 ? (
            <span class="muted">
              None. <a href="/labels">Create labels</a>
            </span>
          ) : null}
        </dd>
      </dl>
      <ScreeningFindings screening={email.screening} />
      {email.attachments.filter((a) => !a.inline).length ? (
        <section class="attachments" aria-label="Attachments">
          <h2 class="visually-hidden">Attachments</h2>
          <ul class="plain">
            {email.attachments
              .filter((a) => !a.inline)
              .map((a) => (
                <li>
                  <a href={`/mail/message/attachment${q({ ...ref, id: a.id })}`} download={a.filename}>
                    📎 {a.filename || 'attachment'}
                  </a>{' '}
                  <span class="muted small">
                    {a.contentType}, {formatSize(a.size)}
                  </span>
                </li>
              ))}
          </ul>
        </section>
      ) : null}
      {hasHtml ? (
        <>
          {remote && !images ? (
            <p class="images-note">
              Images from the web are blocked, so the sender cannot tell you opened this.{' '}
              <a href={`${messageUrl(account, email.uid)}&images=1`}>Show images</a>
            </p>
          ) : null}
          <iframe
            class="body-frame"
            title="Message body"
            sandbox="allow-popups allow-popups-to-escape-sandbox"
            referrerpolicy="no-referrer"
            src={`/mail/message/body${q({ ...ref, images: images && '1' })}`}
          ></iframe>
        </>
      ) : (
        <pre class="body-text">{email.text}</pre>
      )}
      <p class="links small">
        <a href={`/mail/thread${q({ account, id: email.threadId })}`}>Whole conversation</a> ·{' '}
        <a href={`/mail/message/raw${q(ref)}`} target="_blank" rel="noopener">
          Raw source
        </a>
      </p>
    </article>,
  );
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function registerMailRead(app: Hono<AppEnv>): void {
  app.get(
    '/mail/message',
    signedIn(async (c, session) => {
      const account = c.req.query('account') ?? '';
      try {
        const email = await readEmail(c.var.deps, session.caller, account, uidOf(c));
        return await readerPage(c, session, account, email);
      } catch (error) {
        const { error: message, status } = problemOf(error);
        return renderPage(c, session, { title: 'Mail', section: 'mail', error: message, status }, null);
      }
    }),
  );

  // The iframe's document: the sanitised HTML under a CSP that lets nothing run or load.
  app.get(
    '/mail/message/body',
    signedIn(async (c, session) => {
      const account = c.req.query('account') ?? '';
      const uid = uidOf(c);
      const email = await readEmail(c.var.deps, session.caller, account, uid);
      const { cidReferences, inlineCidImages, inlineImageType, mailBodyCsp, mailDocument, sanitizeMailHtml } =
        await safeHtml();
      let body = sanitizeMailHtml(email.html ?? '');
      const urls = new Map<string, string>();
      let budget = INLINE_IMAGES_MAX_BYTES;
      for (const cid of cidReferences(body)) {
        const part = email.attachments.find((a) => a.contentId?.replace(/^<|>$/g, '') === cid);
        const type = part && inlineImageType(part.contentType);
        if (!part || !type || part.size > budget) continue;
        const file = await readAttachment(c.var.deps, session.caller, account, uid, part.id);
        budget -= file.content.length;
        urls.set(cid, `data:${type};base64,${file.content.toString('base64')}`);
      }
      body = inlineCidImages(body, urls);
      c.header('Content-Security-Policy', mailBodyCsp(c.req.query('images') === '1'));
      c.header('Cache-Control', 'no-store');
      c.header('Referrer-Policy', 'no-referrer');
      return c.html(mailDocument(body));
    }),
  );

  app.get(
    '/mail/message/raw',
    signedIn(async (c, session) => {
      const raw = await readRaw(c.var.deps, session.caller, c.req.query('account') ?? '', uidOf(c));
      c.header('Content-Type', 'text/plain; charset=utf-8');
      c.header('Cache-Control', 'no-store');
      return c.body(new Uint8Array(raw));
    }),
  );

  app.get(
    '/mail/message/attachment',
    signedIn(async (c, session) => {
      const file = await readAttachment(
        c.var.deps,
        session.caller,
        c.req.query('account') ?? '',
        uidOf(c),
        c.req.query('id') ?? '',
      );
      const name = (file.filename || 'attachment').replace(/["\\\r\n]/g, '_');
      c.header('Content-Type', file.contentType || 'application/octet-stream');
      c.header(
        'Content-Disposition',
        `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`,
      );
      c.header('Cache-Control', 'no-store');
      return c.body(new Uint8Array(file.content));
    }),
  );

  // One list row, for the client script to put new mail at the top of an open list.
  app.get(
    '/mail/message/row',
    signedIn(
      async (c, session) => {
        const account = c.req.query('account') ?? '';
        const email = await readEmail(c.var.deps, session.caller, account, uidOf(c));
        c.header('Cache-Control', 'no-store');
        return c.html(await htmlOf(<MessageRow account={account} email={email} />));
      },
      { script: true },
    ),
  );

  app.get(
    '/mail/thread',
    signedIn(async (c, session) => {
      const account = c.req.query('account') ?? '';
      let thread;
      try {
        thread = await readThread(c.var.deps, session.caller, account, c.req.query('id') ?? '');
      } catch (error) {
        const { error: message, status } = problemOf(error);
        return renderPage(
          c,
          session,
          { title: 'Conversation', section: 'mail', error: message, status },
          null,
        );
      }
      return renderPage(
        c,
        session,
        { title: thread.subject || 'Conversation', section: 'mail' },
        <section class="thread">
          <p class="back">
            <a href={`/mail${q({ account })}`}>← INBOX</a>
          </p>
          <h1>{thread.subject || '(no subject)'}</h1>
          <p class="muted">{thread.messages.length} message(s), oldest first</p>
          <ol class="thread-list">
            {thread.messages.map((m) => (
              <li>
                <a href={messageUrl(account, m.uid)}>
                  <strong>{m.fromName || m.from}</strong> <span class="muted">in {m.folder}</span>
                  <time datetime={m.date}> {when(m.date)}</time>
                </a>
                <p>{m.preview}</p>
                {m.labels.length ? (
                  <span>
                    {m.labels.map((l) => (
                      <LabelChip label={l} />
                    ))}
                  </span>
                ) : null}
              </li>
            ))}
          </ol>
        </section>,
      );
    }),
  );
}
