import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../http/context.js';
import type { EventFeed } from '../../mailbox/events/event-stream.js';
import { openEventFeed } from '../../mailbox/events/event-stream.js';
import type { MailboxDeps } from '../../mailbox/deps.js';
import { applyLabels, removeLabel } from '../../mailbox/organising/labels.js';
import { cancelSend } from '../../mailbox/approvals/approvals.js';
import type { EmailAction } from '../../mailbox/organising/organise.js';
import { EMAIL_ACTIONS, deleteEmail, updateEmail } from '../../mailbox/organising/organise.js';
import { ValidationFailed } from '../../mailbox/errors.js';
import { errorPage, problemOf } from '../render.js';
import type { DashContext } from '../session.js';
import { formOf, signedIn } from '../session.js';
import { messageUrl, q } from './mail-parts.js';

/** The API's SSE pump (http/routes/events-stream.ts), handed in so both doors stream alike. */
export type StreamFeed = (c: Context, feed: EventFeed, deps: MailboxDeps) => Response;

const fromScript = (c: DashContext) => c.req.header('x-requested-with') === 'mailroom-dashboard';

async function refOf(c: DashContext) {
  const form = await formOf(c);
  return { form, account: form.account ?? '', uid: Number(form.uid) || 0 };
}

/** What went wrong in words, on a page (or plain text for the script). */
async function refused(c: DashContext, error: unknown, session: Parameters<typeof errorPage>[1]) {
  const { error: message, status } = problemOf(error);
  if (fromScript(c)) return c.text(message, status as 400);
  const page = await errorPage(c, session, 'validation_error', message);
  return new Response(page.body, { status, headers: page.headers });
}

export function registerMailActions(app: Hono<AppEnv>, streamFeed: StreamFeed): void {
  app.post(
    '/mail/message/update',
    signedIn(async (c, session) => {
      const { form, account, uid } = await refOf(c);
      const action = form.action as EmailAction;
      try {
        if (!EMAIL_ACTIONS.includes(action)) throw ValidationFailed.field('action', 'unknown action');
        const after = await updateEmail(
          c.var.deps,
          session.caller,
          { account, uid },
          {
            action,
            ...(form.folder ? { folder: form.folder } : {}),
          },
        );
        if (fromScript(c)) return c.body(null, 204);
        // Back in the reader, the script would mark the message read again: "Mark unread" leaves it.
        if (action === 'move' || action === 'unread') {
          const done = action === 'move' ? 'moved' : 'marked-unread';
          return c.redirect(`/mail${q({ account, folder: after.folder, done })}`, 303);
        }
        return c.redirect(messageUrl(account, uid), 303);
      } catch (error) {
        return refused(c, error, session);
      }
    }),
  );

  app.post(
    '/mail/message/delete',
    signedIn(async (c, session) => {
      const { account, uid, form } = await refOf(c);
      try {
        await deleteEmail(c.var.deps, session.caller, { account, uid });
      } catch (error) {
        return refused(c, error, session);
      }
      return c.redirect(`/mail${q({ account, folder: form.from, done: 'deleted' })}`, 303);
    }),
  );

  app.post(
    '/mail/message/cancel',
    signedIn(async (c, session) => {
      const { account, uid } = await refOf(c);
      try {
        await cancelSend(c.var.deps, session.caller, account, uid);
      } catch (error) {
        return refused(c, error, session);
      }
      return c.redirect(`/mail${q({ account, folder: 'Drafts', done: 'send-cancelled' })}`, 303);
    }),
  );

  app.post(
    '/mail/message/label',
    signedIn(async (c, session) => {
      const { form, account, uid } = await refOf(c);
      const label = form.label ?? '';
      try {
        if (form.op === 'remove') await removeLabel(c.var.deps, session.caller, { account, uid }, label);
        else await applyLabels(c.var.deps, session.caller, { account, uid }, [label]);
      } catch (error) {
        return refused(c, error, session);
      }
      return c.redirect(messageUrl(account, uid), 303);
    }),
  );

  // New mail of one inbox, live, for the open list: the API's event feed, opened for the session.
  app.get(
    '/mail/live',
    signedIn(
      async (c, session) => {
        const feed = await openEventFeed(c.var.deps, session.caller, {
          account: c.req.query('account') ?? '',
          sessionId: session.id,
        });
        return streamFeed(c, feed, c.var.deps);
      },
      { script: true },
    ),
  );
}
