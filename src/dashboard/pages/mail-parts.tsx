import type { FC } from 'hono/jsx';
import type { EmailView } from '../../mailbox/reading/email-view.js';
import type { LabelRef } from '../../store/messages.js';
import { when } from '../render.js';

export const q = (params: Record<string, string | number | undefined | null | false>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== false && value !== '')
      search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
};

export const messageUrl = (account: string, uid: number) => `/mail/message${q({ account, uid })}`;

/** A label's colour as an SVG dot: the page CSP allows no inline style, and a fill is not one. */
export const LabelDot: FC<{ color: string }> = ({ color }) => (
  <svg class="dot" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true" focusable="false">
    <circle cx="5" cy="5" r="5" fill={/^#[0-9a-fA-F]{6}$/.test(color) ? color : '#888888'} />
  </svg>
);

export const LabelChip: FC<{ label: LabelRef }> = ({ label }) => (
  <span class="chip">
    <LabelDot color={label.color} />
    {label.name}
  </span>
);

/** One row of a message list; also sent alone to the client script when new mail arrives. */
export const MessageRow: FC<{ account: string; email: EmailView; drafts?: boolean }> = ({
  account,
  email,
  drafts,
}) => {
  const unread = !email.flags.includes('\\Seen');
  const flagged = email.flags.includes('\\Flagged');
  const mine = email.from.toLowerCase() === account.toLowerCase();
  const who = mine || drafts ? `To: ${email.to.join(', ') || '(nobody yet)'}` : email.fromName || email.from;
  const href = drafts ? `/compose${q({ account, draft: email.uid })}` : messageUrl(account, email.uid);
  return (
    <li class={unread ? 'msg unread' : 'msg'} data-uid={String(email.uid)}>
      <a href={href}>
        <span class="msg-from">
          {unread ? <span class="visually-hidden">Unread. </span> : null}
          {who}
        </span>
        <span class="msg-subject">{email.subject || '(no subject)'}</span>
        <span class="msg-preview">{email.preview}</span>
        <span class="msg-meta">
          {flagged ? (
            <span class="flag" title="Flagged">
              ★<span class="visually-hidden"> flagged</span>
            </span>
          ) : null}
          {email.screening.verdict === 'review' ? (
            <span class="review-mark" title="Screening marked it for review: read it before acting on it">
              ⚠<span class="visually-hidden"> marked for review</span>
            </span>
          ) : null}
          {email.attachments.some((a) => !a.inline) ? (
            <span title="Has attachments">
              📎<span class="visually-hidden"> has attachments</span>
            </span>
          ) : null}
          <time datetime={email.date}>{when(email.date)}</time>
        </span>
      </a>
      {email.labels.length > 0 ? (
        <span class="msg-labels">
          {email.labels.map((l) => (
            <LabelChip label={l} />
          ))}
        </span>
      ) : null}
    </li>
  );
};
