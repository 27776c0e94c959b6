import type { Hono } from 'hono';
import type { Child, FC } from 'hono/jsx';
import type { AppEnv } from '../../http/context.js';
import type { OAuthProviderChoice } from '../../mailbox/operations/oauth-connect.js';
import {
  AuthorizationAttemptRefused,
  finishOAuthConnect,
  startOAuthConnect,
} from '../../mailbox/operations/oauth-connect.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { Csrf, errorPage, problemOf } from '../render.js';
import type { DashContext } from '../session.js';
import { baseUrlOf, formOf, signedIn } from '../session.js';

/** Where providers send the browser back: `<MAILROOM_PUBLIC_URL>` and this path is the redirect URI to register. */
export const OAUTH_CALLBACK_PATH = '/inboxes/oauth/callback';

/** What the Inboxes page draws again with a problem: the error, and what was typed in this form. */
export type InboxesPage = (
  c: DashContext,
  session: Session,
  state: { error?: string; status?: number; form?: 'oauth'; values?: Record<string, string> },
) => Promise<Response>;

/** One button per provider whose OAuth client is set, with the address as an optional hint. */
export const OAuthConnectPanel: FC<{
  session: Session;
  providers: OAuthProviderChoice[];
  address: string;
  error: Child;
}> = ({ session, providers, address, error }) => (
  <section class="panel" aria-labelledby="oauth-title">
    <h2 id="oauth-title">Connect by signing in at your provider</h2>
    <p class="muted small">
      You sign in at the provider and allow access; Mailroom keeps the access it is given (sealed), never a
      password.
    </p>
    <form method="post" action="/inboxes/oauth/start" class="stack">
      <Csrf session={session} />
      {error}
      <label>
        Mailbox address <span class="muted">(optional)</span>
        <input
          name="address"
          type="email"
          value={address}
          placeholder="me@gmail.com"
          aria-describedby="oauth-address-help"
        />
        <span id="oauth-address-help" class="help">
          Offered to the provider's sign-in; used when the provider does not say which address was allowed.
        </span>
      </label>
      {providers.map((p) => (
        <button type="submit" class="primary wrap" name="provider" value={p.name}>
          Connect {p.label}
        </button>
      ))}
    </form>
  </section>
);

/**
 * The two ends of the authorization-code flow: the button's POST sends the browser to the
 * provider (303), and the provider's GET back connects the mailbox, then shows the Inboxes page.
 */
export function registerOAuthConnect(app: Hono<AppEnv>, inboxesPage: InboxesPage): void {
  app.post(
    '/inboxes/oauth/start',
    signedIn(async (c, session) => {
      const form = await formOf(c);
      try {
        const url = await startOAuthConnect(c.var.deps, {
          user: session.user.id,
          provider: form.provider ?? '',
          address: form.address ?? '',
          redirectUri: `${baseUrlOf(c)}${OAUTH_CALLBACK_PATH}`,
        });
        return c.redirect(url, 303);
      } catch (error) {
        return inboxesPage(c, session, { ...problemOf(error), form: 'oauth', values: form });
      }
    }),
  );
  app.get(
    OAUTH_CALLBACK_PATH,
    signedIn(async (c, session) => {
      try {
        await finishOAuthConnect(c.var.deps, session.user.id, {
          state: c.req.query('state'),
          code: c.req.query('code'),
          error: c.req.query('error'),
          errorDescription: c.req.query('error_description'),
        });
      } catch (error) {
        if (error instanceof AuthorizationAttemptRefused)
          return errorPage(c, session, error.code, error.message);
        return inboxesPage(c, session, problemOf(error));
      }
      return c.redirect('/inboxes?done=oauth-connected', 303);
    }),
  );
}
