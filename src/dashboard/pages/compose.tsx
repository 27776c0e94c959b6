import crypto from 'node:crypto';
import type { Hono } from 'hono';
import type { AppEnv } from '../../http/context.js';
import { createDraft, sendDraft, updateDraft } from '../../mailbox/drafts/drafts.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { listAccounts } from '../../mailbox/reading/accounts.js';
import type { EmailView } from '../../mailbox/reading/email-view.js';
import { readEmail } from '../../mailbox/reading/read.js';
import type { AttachmentInput } from '../../mailbox/sending/outgoing-input.js';
import { forwardEmail, replyToEmail } from '../../mailbox/sending/reply-forward.js';
import { sendEmail } from '../../mailbox/sending/send.js';
import { sendRefusalWords } from './inbox-settings.js';
import {
  CreateDraftBody,
  ForwardBody,
  ReplyBody,
  SendBody,
  SendDraftBody,
  UpdateDraftBody,
} from '../../contract/send.js';
import { parseWithContract } from '../../contract/validation-messages.js';
import { Csrf, problemOf, renderPage, when } from '../render.js';
import type { DashContext } from '../session.js';
import { formFiles, formOf, signedIn } from '../session.js';
import { q } from './mail-parts.js';
import type { AuditAction } from '../../contract/audit.js';

type Mode = 'new' | 'reply' | 'reply-all' | 'forward';
const MODES: Mode[] = ['new', 'reply', 'reply-all', 'forward'];
const TITLES: Record<Mode, string> = {
  new: 'New message',
  reply: 'Reply',
  'reply-all': 'Reply all',
  forward: 'Forward',
};

interface ComposeState {
  mode: Mode;
  account: string;
  /** The message answered or forwarded. */
  original?: EmailView;
  /** The draft being edited. */
  draft?: number;
  values: Record<string, string>;
  error?: string;
  status?: number;
}

/** Comma- or semicolon-separated addresses as the mailbox takes them. */
const list = (value: string | undefined) =>
  (value ?? '')
    .split(/[,;]/)
    .map((a) => a.trim())
    .filter(Boolean);

async function composePage(c: DashContext, session: Session, state: ComposeState) {
  const accounts = await listAccounts(c.var.deps, session.caller);
  const { mode, original, values: v } = state;
  const field = (
    name: string,
    label: string,
    options: { type?: string; required?: boolean; help?: string } = {},
  ) => (
    <label>
      {label}
      <input
        name={name}
        type={options.type ?? 'text'}
        value={v[name] ?? ''}
        required={options.required}
        autocomplete="off"
        {...(options.help ? { 'aria-describedby': `${name}-help` } : {})}
      />
      {options.help ? (
        <span class="help" id={`${name}-help`}>
          {options.help}
        </span>
      ) : null}
    </label>
  );
  return renderPage(
    c,
    session,
    {
      title: TITLES[mode],
      section: 'mail',
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <section class="compose-page">
      <h1>{TITLES[mode]}</h1>
      {original ? (
        <p class="original">
          {mode === 'forward' ? 'Forwarding' : 'Answering'} “{original.subject || '(no subject)'}” from{' '}
          {original.fromName || original.from}, {when(original.date)}
          {mode === 'forward' ? ', with its attachments.' : '. The original is quoted below your text.'}
        </p>
      ) : null}
      <form method="post" action="/compose" class="stack" enctype="multipart/form-data">
        <Csrf session={session} />
        <input type="hidden" name="mode" value={mode} />
        <input type="hidden" name="once" value={v.once ?? crypto.randomUUID()} />
        {original ? (
          <>
            <input type="hidden" name="uid" value={String(original.uid)} />
            <input type="hidden" name="folder" value={original.folder} />
          </>
        ) : null}
        {state.draft ? <input type="hidden" name="draft" value={String(state.draft)} /> : null}
        {mode === 'new' ? (
          <label>
            From
            <select name="account">
              {accounts.map((a) => (
                <option value={a.address} selected={a.address === state.account}>
                  {a.displayName ? `${a.displayName} <${a.address}>` : a.address}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <input type="hidden" name="account" value={state.account} />
        )}
        {mode === 'new' || mode === 'forward'
          ? field('to', 'To', { required: mode === 'forward', help: 'Addresses separated by commas' })
          : null}
        {mode === 'reply' || mode === 'reply-all' ? (
          <p class="muted small">
            To:{' '}
            {mode === 'reply-all' ? 'the sender and everyone on the message' : 'the sender (or its Reply-To)'}
          </p>
        ) : null}
        {field('cc', 'Cc')}
        {mode === 'new' ? field('bcc', 'Bcc') : null}
        {mode === 'new' ? field('subject', 'Subject') : null}
        <label>
          Message
          <textarea name="text" rows={12} required={mode !== 'new'}>
            {v.text ?? ''}
          </textarea>
        </label>
        {mode === 'forward' ? null : (
          <label>
            Attachments
            <input type="file" name="attachments" multiple aria-describedby="attachments-help" />
            <span class="help" id="attachments-help">
              {state.error ? 'Choose the files again: a page sent back cannot keep them. ' : ''}
              At most {Math.floor(c.var.deps.config.maxMessageBytes / 1024 / 1024)} MB in all
            </span>
          </label>
        )}
        <label>
          Send later <span class="muted">(optional, UTC)</span>
          <input type="datetime-local" name="sendAt" value={v.sendAt ?? ''} aria-describedby="send-at-help" />
          <span class="help" id="send-at-help">
            Empty: it goes when you press Send. A time: it waits in Outbox until then (at most a year ahead).
          </span>
        </label>
        <div class="toolbar">
          <button type="submit" name="intent" value="send" class="primary">
            Send
          </button>
          {mode === 'new' ? (
            <button type="submit" name="intent" value="save">
              Save draft
            </button>
          ) : null}
          <a href={`/mail${q({ account: state.account })}`}>Cancel</a>
        </div>
      </form>
    </section>,
  );
}

export function registerCompose(app: Hono<AppEnv>): void {
  app.get(
    '/compose',
    signedIn(async (c, session) => {
      const deps = c.var.deps;
      const mode = (MODES as string[]).includes(c.req.query('mode') ?? '')
        ? (c.req.query('mode') as Mode)
        : 'new';
      const account = c.req.query('account') ?? (await listAccounts(deps, session.caller))[0]?.address ?? '';
      try {
        const draftUid = Number(c.req.query('draft'));
        if (mode === 'new' && draftUid > 0) {
          const draft = await readEmail(deps, session.caller, account, draftUid, 'Drafts');
          return await composePage(c, session, {
            mode,
            account,
            draft: draftUid,
            values: {
              to: draft.to.join(', '),
              cc: draft.cc.join(', '),
              bcc: (draft.bcc ?? []).join(', '),
              subject: draft.subject,
              text: draft.text,
            },
          });
        }
        const uid = Number(c.req.query('uid'));
        const original = mode !== 'new' ? await readEmail(deps, session.caller, account, uid) : undefined;
        return await composePage(c, session, {
          mode,
          account,
          ...(original ? { original } : {}),
          values: {},
        });
      } catch (error) {
        const { error: message, status } = problemOf(error);
        return renderPage(c, session, { title: 'Compose', section: 'mail', error: message, status }, null);
      }
    }),
  );

  app.post(
    '/compose',
    signedIn(async (c, session) => {
      const deps = c.var.deps;
      const caller = session.caller;
      const form = await formOf(c);
      const mode = (MODES as string[]).includes(form.mode ?? '') ? (form.mode as Mode) : 'new';
      const account = form.account ?? '';
      const draft = Number(form.draft) || undefined;
      if (c.var.audit) c.var.audit.action = composeAction(mode, form.intent === 'save', draft !== undefined);
      // The form's one-time token: a second press of Send (or a resent form) sends nothing twice.
      const once = { idempotencyKey: `dashboard-${form.once ?? crypto.randomUUID()}` };
      const text = form.text ?? '';
      const later = sendAtOf(form.sendAt);
      // Where the person lands: Sent, or Outbox when the send waits (for a person, or for its time).
      const landing = (result: { status?: string }) =>
        c.redirect(
          `/mail${q(
            result.status
              ? {
                  account,
                  folder: 'Outbox',
                  done: result.status === 'scheduled' ? 'scheduled' : 'pending-approval',
                }
              : { account, folder: 'Sent', done: 'sent' },
          )}`,
          303,
        );
      try {
        const files = await attachmentsOf(await formFiles(c, 'attachments'));
        // Only files chosen now: a draft's earlier attachments stay unless new ones replace them.
        const attach = files.length > 0 ? { attachments: files } : {};
        // The API's schemas, so a form meets the same limits and words as a request would.
        if (mode === 'reply' || mode === 'reply-all' || mode === 'forward') {
          const source = { account, uid: Number(form.uid) || 0, folder: form.folder ?? 'INBOX' };
          if (mode === 'forward') {
            const input = parseWithContract(ForwardBody, {
              account,
              to: list(form.to),
              cc: list(form.cc),
              text,
              ...later,
            });
            return landing(await forwardEmail(deps, caller, source, input, once));
          } else {
            const replyAll = mode === 'reply-all';
            const input = parseWithContract(ReplyBody, {
              account,
              text,
              replyAll,
              cc: list(form.cc),
              ...attach,
              ...later,
            });
            return landing(await replyToEmail(deps, caller, source, input, once));
          }
        }
        const fields = {
          to: list(form.to),
          cc: list(form.cc),
          bcc: list(form.bcc),
          subject: form.subject ?? '',
          text,
          ...attach,
        };
        // A draft's fields as the draft routes take them (saved, or saved before it is sent).
        const draftFields = () => {
          const schema = draft ? UpdateDraftBody : CreateDraftBody;
          const { account: _, ...parsed } = parseWithContract(schema, { account, ...fields });
          return parsed;
        };
        if (form.intent === 'save') {
          if (draft) await updateDraft(deps, caller, account, draft, draftFields());
          else await createDraft(deps, caller, account, draftFields());
          return c.redirect(`/mail${q({ account, folder: 'Drafts', done: 'draft-saved' })}`, 303);
        }
        if (draft) {
          await updateDraft(deps, caller, account, draft, draftFields());
          const { sendAt } = parseWithContract(SendDraftBody, { account, ...later });
          return landing(
            await sendDraft(deps, caller, account, draft, { ...once, ...(sendAt ? { sendAt } : {}) }),
          );
        }
        return landing(
          await sendEmail(
            deps,
            caller,
            parseWithContract(SendBody, { from: account, ...fields, ...later }),
            once,
          ),
        );
      } catch (error) {
        const problem = problemOf(error);
        const status = problem.status;
        const message = sendRefusalWords(error, account) ?? problem.error;
        let original: EmailView | undefined;
        if (mode !== 'new')
          original = await readEmail(deps, caller, account, Number(form.uid) || 0).catch(() => undefined);
        return composePage(c, session, {
          mode,
          account,
          ...(original ? { original } : {}),
          ...(draft ? { draft } : {}),
          values: form,
          error: message,
          status,
        });
      }
    }),
  );
}

/**
 * The form's "send later" as the API's sendAt: a datetime-local field has no zone, and the page
 * says it is UTC. Anything else is handed on as typed, for the API's schema to refuse in its words.
 */
function sendAtOf(value: string | undefined): { sendAt?: string } {
  const typed = value?.trim();
  if (!typed) return {};
  const at = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(typed) ? new Date(`${typed}Z`) : null;
  return { sendAt: at && !Number.isNaN(at.getTime()) ? at.toISOString() : typed };
}

/** Uploaded files as the API's attachments (base64 content, the browser's media type if any). */
async function attachmentsOf(files: File[]): Promise<AttachmentInput[]> {
  return Promise.all(
    files.map(async (file) => ({
      filename: file.name || 'attachment',
      ...(file.type ? { contentType: file.type } : {}),
      content: Buffer.from(await file.arrayBuffer()).toString('base64'),
    })),
  );
}

/** What a press of the compose form's buttons records: the form sends, replies, forwards or keeps a draft. */
function composeAction(mode: Mode, save: boolean, draft: boolean): AuditAction {
  if (mode === 'forward') return 'email.forward';
  if (mode !== 'new') return 'email.reply';
  if (save) return draft ? 'draft.update' : 'draft.create';
  return draft ? 'draft.send' : 'email.send';
}
