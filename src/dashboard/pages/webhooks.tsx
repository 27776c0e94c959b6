import type { Hono } from 'hono';
import { CreateWebhookBody, UpdateWebhookBody } from '../../contract/webhooks.js';
import { parseWithContract } from '../../contract/validation-messages.js';
import type { AppEnv } from '../../http/context.js';
import type { EventKind, WebhookView } from '../../mailbox/events/webhooks.js';
import {
  EVENT_KINDS,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '../../mailbox/events/webhooks.js';
import { listDeliveries, waitingDeliveries } from '../../mailbox/events/webhook-deliveries.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { Copyable, Csrf, PostButton, Time, noticeOf, problemOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { formAll, formOf, signedIn } from '../session.js';
import { Deliveries, hookUrl, registerWebhookDeliveries } from './webhook-deliveries.js';

const Secret = ({ secret }: { secret: string }) => (
  <section class="panel reveal" aria-labelledby="secret-title">
    <h2 id="secret-title">Signing secret</h2>
    <p>
      <strong>Copy it now: it is shown only this once.</strong> Check each delivery's signature with it
      (Standard Webhooks).
    </p>
    <Copyable id="webhook-secret" value={secret} button="Copy secret" />
  </section>
);

const WebhookFields = ({ hook, values }: { hook?: WebhookView; values?: Record<string, string> }) => (
  <>
    <label>
      URL
      <input
        name="url"
        type="url"
        required
        value={values?.url ?? hook?.url ?? ''}
        placeholder="https://example.com/hooks/mail"
      />
    </label>
    <fieldset>
      <legend>Events</legend>
      {EVENT_KINDS.map((kind) => (
        <label class="check">
          <input
            type="checkbox"
            name="events"
            value={kind}
            checked={hook ? hook.events.includes(kind) : kind === 'email.received'}
          />{' '}
          {kind}
        </label>
      ))}
    </fieldset>
    <label class="check">
      <input
        type="checkbox"
        name="includeSpam"
        value="on"
        checked={values ? values.includeSpam !== undefined : (hook?.includeSpam ?? false)}
      />{' '}
      Also mail filed into Spam
    </label>
    <label>
      Description <span class="muted">(optional)</span>
      <input name="description" value={values?.description ?? hook?.description ?? ''} maxlength={500} />
    </label>
  </>
);

async function listPage(
  c: DashContext,
  session: Session,
  state: { secret?: string; error?: string; status?: number; values?: Record<string, string> } = {},
) {
  const { webhooks } = await listWebhooks(c.var.deps, session.caller, 100);
  return renderPage(
    c,
    session,
    {
      title: 'Webhooks',
      section: 'webhooks',
      notice: noticeOf(c),
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <>
      <h1>Webhooks</h1>
      <p class="lead">Mailroom POSTs each event of your inboxes to these addresses, signed, with retries.</p>
      {state.secret ? <Secret secret={state.secret} /> : null}
      {webhooks.length === 0 ? (
        <p class="empty">No webhook yet. Add one to hear about new mail without polling.</p>
      ) : (
        <ul class="cards">
          {webhooks.map((w) => (
            <li class="panel">
              <a href={hookUrl(w.id)} class="wrap">
                <strong>{w.url}</strong>
              </a>
              <div class="muted small">
                {w.events.join(', ')} · <span class={`state state-${w.status}`}>{w.status}</span>
                {w.description ? ` · ${w.description}` : ''}
              </div>
            </li>
          ))}
        </ul>
      )}
      <section class="panel">
        <h2>Add a webhook</h2>
        <form method="post" action="/webhooks" class="stack">
          <Csrf session={session} />
          <WebhookFields {...(state.values ? { values: state.values } : {})} />
          <button type="submit" class="primary">
            Add webhook
          </button>
        </form>
      </section>
    </>,
  );
}

async function hookPage(
  c: DashContext,
  session: Session,
  id: string,
  state: { secret?: string; error?: string; status?: number } = {},
) {
  const deps = c.var.deps;
  const hook = await getWebhook(deps, session.caller, id);
  // Waiting first, then the attempts: an attempt committed between the two reads then shows as
  // an attempt (and perhaps still as waiting, for one refresh). Read side by side on PostgreSQL
  // (two connections, two snapshots), the attempts could be read before it and the waiting after
  // it: the delivery showed nowhere and the page never refreshed.
  const waiting = await waitingDeliveries(deps, session.caller, id);
  const { deliveries } = await listDeliveries(deps, session.caller, id, 50);
  const post = (path: string, label: string, primary = false) => (
    <PostButton session={session} action={`${hookUrl(id)}/${path}`} label={label} primary={primary} />
  );
  return renderPage(
    c,
    session,
    {
      title: 'Webhook',
      section: 'webhooks',
      notice: noticeOf(c),
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <>
      <p class="back">
        <a href="/webhooks">← Webhooks</a>
      </p>
      <h1 class="wrap">{hook.url}</h1>
      <p>
        <span class={`state state-${hook.status}`}>{hook.status}</span>
        {hook.disabled_reason ? <span class="muted"> · {hook.disabled_reason}</span> : null}
        {hook.failing_since ? (
          <span class="error-text">
            {' '}
            · failing since <Time iso={hook.failing_since} />
          </span>
        ) : null}
      </p>
      {state.secret ? <Secret secret={state.secret} /> : null}
      <div class="toolbar" role="group" aria-label="Webhook actions">
        {post('test', 'Send a test event', true)}
        {hook.status === 'enabled' ? post('disable', 'Disable') : post('enable', 'Enable')}
        {post('rotate', 'New secret')}
        <PostButton
          session={session}
          action={`${hookUrl(id)}/delete`}
          label="Delete"
          danger
          confirm="Delete this webhook? Its delivery log goes with it."
        />
      </div>
      <Deliveries hookId={id} waiting={waiting} attempts={deliveries} />
      <section class="panel">
        <h2>Edit</h2>
        <form method="post" action={hookUrl(id)} class="stack">
          <Csrf session={session} />
          <WebhookFields hook={hook} />
          <button type="submit" class="primary">
            Save
          </button>
        </form>
      </section>
    </>,
  );
}

/** The form's fields, for the API's own schemas to parse (its limits and words). */
async function fieldsOf(c: DashContext) {
  const form = await formOf(c);
  const events = (await formAll(c, 'events')).filter((e): e is EventKind =>
    (EVENT_KINDS as readonly string[]).includes(e),
  );
  return {
    form,
    input: {
      url: form.url ?? '',
      events,
      includeSpam: form.includeSpam !== undefined,
      description: (form.description ?? '').trim() || null,
    },
  };
}

export function registerWebhooks(app: Hono<AppEnv>): void {
  registerWebhookDeliveries(app);
  app.get(
    '/webhooks',
    signedIn((c, session) => listPage(c, session)),
  );
  app.post(
    '/webhooks',
    signedIn(async (c, session) => {
      const { form, input } = await fieldsOf(c);
      try {
        const fields = parseWithContract(CreateWebhookBody, input);
        const hook = await createWebhook(c.var.deps, session.caller, fields);
        // Shown on the webhook's own page at once: the secret must not travel in a URL.
        return await hookPage(c, session, hook.id, { secret: hook.secret });
      } catch (error) {
        return listPage(c, session, { ...problemOf(error), values: form });
      }
    }),
  );
  app.get(
    '/webhooks/:id',
    signedIn((c, session) => hookPage(c, session, c.req.param('id') ?? '')),
  );
  const change = (
    path: string,
    act: (c: DashContext, session: Session, id: string) => Promise<Response | string>,
  ) =>
    app.post(
      `/webhooks/:id${path}`,
      signedIn(async (c, session) => {
        const id = c.req.param('id') ?? '';
        try {
          const done = await act(c, session, id);
          return typeof done === 'string' ? c.redirect(done, 303) : done;
        } catch (error) {
          return hookPage(c, session, id, problemOf(error)).catch(() =>
            listPage(c, session, problemOf(error)),
          );
        }
      }),
    );
  change('', async (c, session, id) => {
    const { input } = await fieldsOf(c);
    await updateWebhook(c.var.deps, session.caller, id, parseWithContract(UpdateWebhookBody, input));
    return `${hookUrl(id)}?done=webhook-saved`;
  });
  change('/enable', async (c, session, id) => {
    await updateWebhook(c.var.deps, session.caller, id, { status: 'enabled' });
    return `${hookUrl(id)}?done=webhook-enabled`;
  });
  change('/disable', async (c, session, id) => {
    await updateWebhook(c.var.deps, session.caller, id, { status: 'disabled' });
    return `${hookUrl(id)}?done=webhook-disabled`;
  });
  change('/test', async (c, session, id) => {
    await sendTestEvent(c.var.deps, session.caller, id);
    return `${hookUrl(id)}?done=webhook-test`;
  });
  change('/rotate', async (c, session, id) => {
    const hook = await rotateWebhookSecret(c.var.deps, session.caller, id);
    return hookPage(c, session, id, { secret: hook.secret });
  });
  change('/delete', async (c, session, id) => {
    await deleteWebhook(c.var.deps, session.caller, id);
    return '/webhooks?done=webhook-deleted';
  });
}
