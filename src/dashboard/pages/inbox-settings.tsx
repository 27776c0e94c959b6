import type { Hono } from 'hono';
import type { InboxSettingsView } from '../../contract/settings.js';
import { UpdateInboxSettingsBody } from '../../contract/settings.js';
import { parseWithContract } from '../../contract/validation-messages.js';
import type { AppEnv } from '../../http/context.js';
import { mailroomErrorOf } from '../../mailbox/errors.js';
import { getInboxSettings, updateInboxSettings } from '../../mailbox/limits/inbox-settings.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { Csrf, noticeOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { formPost, signedIn } from '../session.js';

const MODES: { value: InboxSettingsView['mode']; label: string }[] = [
  { value: 'autonomous', label: 'Autonomous: sends go out' },
  { value: 'approve_new', label: 'Approve new recipients: a send to anyone new waits for you (Approvals)' },
  { value: 'approve_all', label: 'Approve every send: each waits for you (Approvals)' },
  { value: 'read_only', label: 'Read only: receives mail, sends none' },
];

/** "12 of 500", or "12 (no limit)". */
const ofLimit = (sent: number, limit: number) => (limit === 0 ? `${sent} (no limit)` : `${sent} of ${limit}`);

async function settingsPage(
  c: DashContext,
  session: Session,
  state: { error?: string; status?: number } = {},
) {
  const address = c.req.param('address') ?? '';
  const settings = await getInboxSettings(c.var.deps, session.caller, address);
  const { limits, sent } = settings;
  const full = (n: number, limit: number) => limit > 0 && n >= limit;
  const held = settings.paused
    ? 'Sending is paused: every send from this inbox is refused until you resume it. Mail still comes in.'
    : settings.mode === 'read_only'
      ? 'This inbox is read only: every send from it is refused.'
      : full(sent.lastHour, limits.perHour) || full(sent.lastDay, limits.perDay)
        ? 'The send limit is reached: sends are refused until older sends leave the window.'
        : null;
  return renderPage(
    c,
    session,
    {
      title: `Settings of ${address}`,
      section: 'inboxes',
      notice: noticeOf(c),
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <>
      <h1>Settings of {address}</h1>
      <p class="lead">What agents may send from this inbox, through the API, MCP and this dashboard.</p>
      {held ? (
        <p class="error" role="status" data-testid="send-held">
          {held}
        </p>
      ) : null}
      <section class="panel" aria-labelledby="sent-title">
        <h2 id="sent-title">Sent lately</h2>
        <dl class="headers">
          <dt>Recipients in the last hour</dt>
          <dd data-testid="sent-hour">{ofLimit(sent.lastHour, limits.perHour)}</dd>
          <dt>Recipients in the last 24 hours</dt>
          <dd data-testid="sent-day">{ofLimit(sent.lastDay, limits.perDay)}</dd>
        </dl>
      </section>
      <section class="panel" aria-labelledby="change-title">
        <h2 id="change-title">Change</h2>
        <form method="post" action={`/inboxes/${encodeURIComponent(address)}/settings`} class="stack">
          <Csrf session={session} />
          <label>
            <input type="checkbox" name="paused" checked={settings.paused} /> Pause sending (mail still comes
            in)
          </label>
          <label>
            Mode
            <select name="mode">
              {MODES.map((m) => (
                <option value={m.value} selected={settings.mode === m.value}>
                  {m.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Recipients per hour (0: no limit; empty: the server's default)
            <input name="perHour" inputmode="numeric" value={String(limits.perHour)} />
          </label>
          <label>
            Recipients per 24 hours (0: no limit; empty: the server's default)
            <input name="perDay" inputmode="numeric" value={String(limits.perDay)} />
          </label>
          <div class="toolbar">
            <button type="submit" class="primary">
              Save settings
            </button>
          </div>
        </form>
      </section>
    </>,
  );
}

/** A limit as typed: empty for the server's default, a number, or the text for the schema to refuse. */
const limitField = (value: string | undefined): number | null | string => {
  const text = (value ?? '').trim();
  if (text === '') return null;
  return /^\d+$/.test(text) ? Number(text) : text;
};

export function registerInboxSettings(app: Hono<AppEnv>): void {
  app.get(
    '/inboxes/:address/settings',
    signedIn((c, session) => settingsPage(c, session)),
  );
  app.post(
    '/inboxes/:address/settings',
    formPost(settingsPage, async (c, session, form) => {
      const address = c.req.param('address') ?? '';
      const changes = parseWithContract(UpdateInboxSettingsBody, {
        paused: form.paused === 'on',
        ...(form.mode ? { mode: form.mode } : {}),
        limits: { perHour: limitField(form.perHour), perDay: limitField(form.perDay) },
      });
      await updateInboxSettings(c.var.deps, session.caller, address, changes);
      return `/inboxes/${encodeURIComponent(address)}/settings?done=settings-saved`;
    }),
  );
}

/**
 * A send the owner's settings refused, in a person's words (the compose page); undefined for any
 * other error.
 */
export function sendRefusalWords(error: unknown, account: string): string | undefined {
  const known = mailroomErrorOf(error);
  const settings = `the inbox's Settings page (/inboxes/${account}/settings)`;
  switch (known?.code) {
    case 'inbox_paused':
      return `Not sent: sending from ${account} is paused. Resume it on ${settings}.`;
    case 'rate_limited':
      return `Not sent: ${account} has reached its send limit. ${known.message.charAt(0).toUpperCase()}${known.message.slice(1)}. Limits are on ${settings}.`;
    case 'loop_detected':
      return `Not sent: ${known.message.charAt(0).toUpperCase()}${known.message.slice(1)}.`;
    default:
      return undefined;
  }
}
