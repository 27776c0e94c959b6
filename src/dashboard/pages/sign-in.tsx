import type { Hono } from 'hono';
import type { AppEnv } from '../../http/context.js';
import { clientAddress } from '../../http/middleware/auth-throttle.js';
import {
  SignInThrottled,
  redeemSignInLink,
  signInWithPassword,
  signOut,
} from '../../mailbox/operations/sign-in.js';
import { noticeOf, problemOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { crossSite, currentSession, endSession, formOf, signedIn, startSession } from '../session.js';
import { errorPage } from '../render.js';
import { noteActor } from '../audit.js';

/**
 * Where a person goes after signing in: `next` only when it resolves, as a browser resolves a
 * Location (tabs and newlines dropped, `\` read as `/`), to a path on this origin; else `/`.
 * The answer is the path as the URL parser serialised it (no control characters left to break
 * the header), checked once more on its own: `/.//evil.example` resolves to the path
 * `//evil.example`, which as a Location is another host.
 */
function safeNext(c: DashContext, next: string | undefined): string {
  if (!next) return '/mail';
  const origin = new URL(c.req.url).origin;
  const sameOrigin = (url: string): URL | undefined => {
    try {
      const resolved = new URL(url, origin);
      return resolved.origin === origin ? resolved : undefined;
    } catch {
      return undefined; // not a URL at all (`http://[`)
    }
  };
  const resolved = sameOrigin(next);
  const path = resolved && resolved.pathname + resolved.search + resolved.hash;
  return path && sameOrigin(path) ? path : '/';
}

function signInForm(
  c: DashContext,
  values: { name?: string; next?: string; error?: string; status?: number },
) {
  return renderPage(
    c,
    null,
    {
      title: 'Sign in',
      section: 'none',
      error: values.error,
      notice: noticeOf(c),
      ...(values.status ? { status: values.status } : {}),
    },
    <section class="narrow panel">
      <h1>Sign in to Mailroom</h1>
      <form method="post" action="/sign-in" class="stack">
        <input type="hidden" name="next" value={safeNext(c, values.next)} />
        <label>
          Name
          <input name="name" autocomplete="username" required value={values.name ?? ''} autofocus />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
      <p class="muted small">
        No password yet? On the server: <code>mailroom user passwd NAME</code>. A fresh install prints a
        one-time sign-in link when it first starts.
      </p>
    </section>,
  );
}

export function registerSignIn(app: Hono<AppEnv>): void {
  app.get(
    '/',
    signedIn((c) => c.redirect('/mail', 303)),
  );

  app.get('/sign-in', async (c) => {
    if (await currentSession(c)) return c.redirect(safeNext(c, c.req.query('next')), 303);
    return signInForm(c, { next: c.req.query('next') });
  });

  app.post('/sign-in', async (c) => {
    if (crossSite(c)) return errorPage(c, null, 'forbidden', 'This form was sent from another site.');
    const form = await formOf(c);
    try {
      const { token, session } = await signInWithPassword(c.var.deps, {
        name: form.name ?? '',
        password: form.password ?? '',
        client: clientAddress(c),
      });
      noteActor(c.var.audit, session.user.id);
      startSession(c, token);
      return c.redirect(safeNext(c, form.next), 303);
    } catch (error) {
      if (error instanceof SignInThrottled)
        c.header('Retry-After', String(Math.ceil(error.retryAfterSeconds)));
      const { error: message, status } = problemOf(error);
      return signInForm(c, { name: form.name, next: form.next, error: message, status });
    }
  });

  app.get('/sign-in/link/:token', (c) =>
    renderPage(
      c,
      null,
      { title: 'Sign in', section: 'none' },
      <section class="narrow panel">
        <h1>Sign in to Mailroom</h1>
        <p>This one-time link signs you in to the dashboard. It works once, for 15 minutes.</p>
        <form method="post" action="/sign-in/link">
          <input type="hidden" name="token" value={c.req.param('token')} />
          <button type="submit" class="primary">
            Continue to the dashboard
          </button>
        </form>
      </section>,
    ),
  );

  app.post('/sign-in/link', async (c) => {
    if (crossSite(c)) return errorPage(c, null, 'forbidden', 'This form was sent from another site.');
    const form = await formOf(c);
    try {
      const { token, session } = await redeemSignInLink(c.var.deps, form.token ?? '');
      noteActor(c.var.audit, session.user.id);
      startSession(c, token);
      return c.redirect('/mail', 303);
    } catch (error) {
      const { error: message, status } = problemOf(error);
      return signInForm(c, { error: message, status });
    }
  });

  app.post(
    '/sign-out',
    signedIn(async (c, session) => {
      await signOut(c.var.deps, session.id);
      endSession(c);
      return c.redirect('/sign-in?done=signedout', 303);
    }),
  );
}
