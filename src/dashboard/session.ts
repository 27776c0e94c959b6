import crypto from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { bodyLimit } from 'hono/body-limit';
import { publicUrlOf } from '../config.js';
import type { AppEnv } from '../http/context.js';
import type { Session } from '../mailbox/operations/sign-in.js';
import { SESSION_IDLE_MS, sessionOf } from '../mailbox/operations/sign-in.js';
import { errorPage, problemOf } from './render.js';
import { noteActor, noteRefusal } from './audit.js';

export const SESSION_COOKIE = 'mailroom_session';

export type DashContext = Context<AppEnv>;
export type Page = (c: DashContext, session: Session) => Response | Promise<Response>;

/** The form fields of a POST, strings only (files: formFiles). */
export async function formOf(c: DashContext): Promise<Record<string, string>> {
  const body = await c.req.parseBody({ all: true });
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') out[key] = first;
  }
  return out;
}

/**
 * The files chosen in a multipart form's file field. A field left empty still sends one part
 * with no name and no bytes; it is not a file. The body is bounded by signedIn like any POST.
 */
export async function formFiles(c: DashContext, name: string): Promise<File[]> {
  return (await fieldValues(c, name)).filter(
    (v): v is File => typeof v !== 'string' && (v.name !== '' || v.size > 0),
  );
}

/** Every value of a repeated field (checkboxes). */
export async function formAll(c: DashContext, name: string): Promise<string[]> {
  return (await fieldValues(c, name)).filter((v): v is string => typeof v === 'string');
}

/** Every value a form sent under one name (parseBody keeps the parsed body for the next call). */
async function fieldValues(c: DashContext, name: string): Promise<(string | File)[]> {
  const value = (await c.req.parseBody({ all: true }))[name];
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

/**
 * Whether a request comes from another site: the browser says so in Sec-Fetch-Site, or its
 * Origin is neither this server as addressed nor MAILROOM_PUBLIC_URL. A form another site
 * posts here is refused before anything else is looked at (403), a sign-in form included.
 */
export function crossSite(c: DashContext): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = c.req.header('origin');
  if (origin === undefined) return false;
  const own = new URL(c.req.url).origin;
  const config = c.var.deps.config;
  return origin !== own && origin !== new URL(publicUrlOf(config)).origin;
}

export function startSession(c: DashContext, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: publicUrlOf(c.var.deps.config).startsWith('https:'),
    path: '/',
    maxAge: Math.floor(SESSION_IDLE_MS / 1000),
  });
}

export function endSession(c: DashContext): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/' });
}

export async function currentSession(c: DashContext): Promise<Session | undefined> {
  const token = getCookie(c, SESSION_COOKIE);
  return token ? await sessionOf(c.var.deps, token) : undefined;
}

function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/** Where a signed-out person is sent: the sign-in page, coming back here afterwards. */
function toSignIn(c: DashContext): Response {
  const url = new URL(c.req.url);
  const next = c.req.method === 'GET' ? url.pathname + url.search : '/';
  return c.redirect(`/sign-in?next=${encodeURIComponent(next)}`, 303);
}

export interface PageOptions {
  /** Only for admin users; others get 404, as for a page that is not there. */
  admin?: boolean;
  /** Answered to scripts (fetch, EventSource): 401 instead of a redirect to the sign-in page. */
  script?: boolean;
}

/**
 * A page for a signed-in person. A POST must come from this site (Origin, Sec-Fetch-Site) and
 * carry the session's CSRF token (the form's `_csrf` field, or the X-CSRF-Token header of the
 * client script); a body is bounded as the API's is.
 */
export function signedIn(page: Page, options: PageOptions = {}) {
  return async (c: DashContext): Promise<Response> => {
    const post = c.req.method === 'POST';
    if (post && crossSite(c)) return errorPage(c, null, 'forbidden', 'This form was sent from another site.');
    let session = await currentSession(c);
    if (!session) {
      if (post) noteRefusal('unauthorized');
      return options.script ? c.text('sign in first', 401) : toSignIn(c);
    }
    if (options.admin && !session.user.admin)
      return errorPage(c, session, 'not_found', 'There is no such page.');
    if (!post) return page(c, session);
    const { audit } = c.var;
    noteActor(audit, session.user.id);
    if (audit) session = { ...session, caller: { ...session.caller, audit } };
    let answer: Response | undefined;
    const limit = bodyLimit({
      maxSize: c.var.deps.config.maxBodyBytes,
      onError: (ctx) =>
        errorPage(ctx as DashContext, session, 'payload_too_large', 'What was sent is too large.'),
    });
    const limited = await limit(c, async () => {
      const token = c.req.header('x-csrf-token') ?? (await formOf(c))._csrf;
      answer = sameToken(token, session.csrfToken)
        ? await page(c, session)
        : await errorPage(c, session, 'forbidden', 'This form has expired; reload the page and try again.');
    });
    return limited ?? answer!;
  };
}

/** The address people use for this server: MAILROOM_PUBLIC_URL, else the one this request came to. */
export function baseUrlOf(c: DashContext): string {
  return c.var.deps.config.publicUrl ?? new URL(c.req.url).origin;
}

/**
 * A POST that does one thing, then sends the browser (303) where `run` answers; a mailbox error
 * draws `page` again with what went wrong.
 */
export function formPost(
  page: (c: DashContext, session: Session, problem: { error: string; status: number }) => Promise<Response>,
  run: (c: DashContext, session: Session, form: Record<string, string>) => Promise<string>,
  options: PageOptions = {},
) {
  return signedIn(async (c, session) => {
    try {
      return c.redirect(await run(c, session, await formOf(c)), 303);
    } catch (error) {
      return page(c, session, problemOf(error));
    }
  }, options);
}
