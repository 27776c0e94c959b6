import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { MAX_RESPONSE_BYTES, RESPONSE_EXCERPT_BYTES } from '../../events/http-post.js';
import type { AppEnv } from '../../http/context.js';
import type { AttemptView, WaitingDelivery } from '../../mailbox/events/webhook-deliveries.js';
import { readAttempt } from '../../mailbox/events/webhook-deliveries.js';
import { getWebhook } from '../../mailbox/events/webhooks.js';
import { ColumnHeads, Time, problemOf, renderPage } from '../render.js';
import { signedIn } from '../session.js';

export const hookUrl = (id: string) => `/webhooks/${encodeURIComponent(id)}`;
const attemptUrl = (hookId: string, attemptId: number) => `${hookUrl(hookId)}/attempts/${attemptId}`;

const Answer: FC<{ attempt: AttemptView }> = ({ attempt }) => (
  <span class={attempt.succeeded ? 'verdict verdict-pass' : 'verdict verdict-fail'}>
    {attempt.status_code ?? 'no answer'}
  </span>
);

const DeliveryState: FC<{ attempt: AttemptView }> = ({ attempt: { delivery } }) => (
  <>
    {delivery.status}
    {delivery.attempts > 1 ? `, ${delivery.attempts} attempts` : ''}
    {delivery.next_attempt_at ? (
      <div class="muted small">
        next <Time iso={delivery.next_attempt_at} />
      </div>
    ) : null}
  </>
);

/**
 * A webhook's deliveries: those waiting for their first attempt, then every attempt, each opening
 * its request and response. While some wait, the script refreshes the section until they are tried.
 */
export const Deliveries: FC<{ hookId: string; waiting: WaitingDelivery[]; attempts: AttemptView[] }> = ({
  hookId,
  waiting,
  attempts,
}) => (
  <section
    id="deliveries"
    aria-labelledby="log-title"
    aria-live="polite"
    {...(waiting.length ? { 'data-refresh-while-waiting': '' } : {})}
  >
    <h2 id="log-title">Deliveries</h2>
    {waiting.length + attempts.length === 0 ? (
      <p class="empty">Nothing sent yet. “Send a test event” shows what a delivery looks like.</p>
    ) : (
      <div class="table-wrap">
        <table class="deliveries cards-sm">
          <ColumnHeads names={['When', 'Event', 'Answer', 'Time taken', 'Delivery']} />
          <tbody>
            {waiting.map((w) => (
              <tr class="waiting">
                <td data-label="When">
                  <Time iso={w.created_at} />
                </td>
                <td data-label="Event">{w.type}</td>
                <td data-label="Answer" colspan={3}>
                  <span class="muted">Sending…</span> <a href={hookUrl(hookId)}>Refresh</a>
                </td>
              </tr>
            ))}
            {attempts.map((d) => (
              <tr>
                <td data-label="When">
                  <a href={attemptUrl(hookId, d.id)}>
                    <Time iso={d.attempted_at} />
                    <span class="visually-hidden">
                      {' '}
                      {d.type} attempt {d.id}: request and response
                    </span>
                  </a>
                </td>
                <td data-label="Event">{d.type}</td>
                <td data-label="Answer">
                  <Answer attempt={d} />
                  {d.error ? <div class="error-text small">{d.error}</div> : null}
                </td>
                <td data-label="Time taken">{d.duration_ms} ms</td>
                <td data-label="Delivery">
                  <DeliveryState attempt={d} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </section>
);

/** JSON indented for reading; anything else as it is. */
function readable(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`;
}

export function registerWebhookDeliveries(app: Hono<AppEnv>): void {
  // One attempt: the request as it went out (the secret is never kept: the signature made with it
  // is) and the answer as it came back, its body cut to its first RESPONSE_EXCERPT_BYTES.
  app.get(
    '/webhooks/:id/attempts/:attempt',
    signedIn(async (c, session) => {
      const id = c.req.param('id') ?? '';
      let hook, attempt;
      try {
        hook = await getWebhook(c.var.deps, session.caller, id);
        attempt = await readAttempt(c.var.deps, session.caller, id, Number(c.req.param('attempt')));
      } catch (error) {
        const { error: message, status } = problemOf(error);
        return renderPage(
          c,
          session,
          { title: 'Delivery', section: 'webhooks', error: message, status },
          null,
        );
      }
      const { request, response } = attempt;
      return renderPage(
        c,
        session,
        { title: `${attempt.type} delivery`, section: 'webhooks' },
        <article class="attempt">
          <p class="back">
            <a href={hookUrl(id)} class="wrap">
              ← {hook.url}
            </a>
          </p>
          <h1>
            {attempt.type} <span class="muted">·</span> <Time iso={attempt.attempted_at} />
          </h1>
          <dl class="headers">
            <dt>Answer</dt>
            <dd>
              <Answer attempt={attempt} /> <span class="muted">in {attempt.duration_ms} ms</span>
              {attempt.error ? <div class="error-text">{attempt.error}</div> : null}
            </dd>
            <dt>Delivery</dt>
            <dd>
              <DeliveryState attempt={attempt} />
            </dd>
            <dt>Event</dt>
            <dd>
              <code>{attempt.event_id}</code>
            </dd>
          </dl>
          <section aria-labelledby="request-title" class="exchange">
            <h2 id="request-title">Request</h2>
            {request.url === null || request.headers === null ? (
              <p class="muted">
                Its URL and headers were not kept: it was made before this version of Mailroom.
              </p>
            ) : (
              <>
                <p class="wrap">
                  <code>POST {request.url}</code>
                </p>
                <div class="table-wrap">
                  <table class="request-headers">
                    <ColumnHeads names={['Header', 'Value']} />
                    <tbody>
                      {Object.entries(request.headers).map(([name, value]) => (
                        <tr>
                          <th scope="row">
                            <code>{name}</code>
                          </th>
                          <td class="wrap">
                            <code>{value}</code>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </>
            )}
            <h3>Body</h3>
            <p class="muted small">Indented here; it went out on one line, as signed.</p>
            <pre class="exchange-body" tabindex={0} aria-label="Request body">
              {readable(request.body)}
            </pre>
          </section>
          <section aria-labelledby="response-title" class="exchange">
            <h2 id="response-title">Response</h2>
            {response.body === null ? (
              <p class="muted">
                {attempt.status_code === null
                  ? `No answer${attempt.error ? `: ${attempt.error}` : ''}.`
                  : 'Its body was not kept: it was made before this version of Mailroom.'}
              </p>
            ) : response.bytes === 0 ? (
              <p class="muted">An empty body.</p>
            ) : (
              <>
                {response.bytes !== null && response.bytes > RESPONSE_EXCERPT_BYTES ? (
                  <p class="muted small">
                    The first {size(RESPONSE_EXCERPT_BYTES)} of {size(response.bytes)}
                    {response.bytes >= MAX_RESPONSE_BYTES ? ' or more' : ''}.
                  </p>
                ) : null}
                <pre class="exchange-body" tabindex={0} aria-label="Response body">
                  {response.body}
                </pre>
              </>
            )}
          </section>
        </article>,
      );
    }),
  );
}
