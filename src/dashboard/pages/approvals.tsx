import type { Hono } from 'hono';
import { ApprovalParams, RejectBody } from '../../contract/approvals.js';
import { parseWithContract } from '../../contract/validation-messages.js';
import type { AppEnv } from '../../http/context.js';
import type { ApprovalView } from '../../contract/approvals.js';
import { approveSend, listApprovals, rejectSend } from '../../mailbox/approvals/approvals.js';
import { listKeys } from '../../mailbox/operations/admin.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { Csrf, PostButton, Time, noticeOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { formPost, signedIn } from '../session.js';

/** `API key “support-agent” (key_…)`, or the id alone for a key without a name. */
function keyLabel(id: string, names: Map<string, string>): string {
  const name = names.get(id);
  return name ? `API key “${name}” (${id})` : `API key ${id}`;
}

const Addresses = ({ label, list }: { label: string; list: string[] | undefined }) =>
  list && list.length > 0 ? (
    <>
      <dt>{label}</dt>
      <dd>{list.join(', ')}</dd>
    </>
  ) : null;

/** One waiting send, whole: who it goes to, what it says, why it waits; approve and reject one click each. */
const Waiting = ({
  session,
  approval,
  keyNames,
}: {
  session: Session;
  approval: ApprovalView;
  /** The user's keys by id: a person knows a key by the name they gave it. */
  keyNames: Map<string, string>;
}) => {
  const { email } = approval;
  const headingId = `approval-${approval.id}`;
  return (
    <article class="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{email.subject || '(no subject)'}</h2>
      <dl class="headers">
        <dt>From</dt>
        <dd>{approval.account}</dd>
        <Addresses label="To" list={email.to} />
        <Addresses label="Cc" list={email.cc} />
        <Addresses label="Bcc" list={email.bcc} />
        <dt>Why it waits</dt>
        <dd>{approval.reason}</dd>
        <dt>Asked by</dt>
        <dd>{approval.requestedBy ? keyLabel(approval.requestedBy, keyNames) : 'a person'}</dd>
        {approval.sendAt ? (
          <>
            <dt>Goes at</dt>
            <dd>
              <Time iso={approval.sendAt} />
            </dd>
          </>
        ) : null}
        <dt>Expires</dt>
        <dd>
          <Time iso={approval.expiresAt} />
        </dd>
        {email.attachments.length > 0 ? (
          <>
            <dt>Attachments</dt>
            <dd>{email.attachments.map((a) => `${a.filename} (${a.size} bytes)`).join(', ')}</dd>
          </>
        ) : null}
      </dl>
      <pre class="body-text">{email.text}</pre>
      <div class="toolbar">
        <PostButton
          session={session}
          action="/approvals/approve"
          fields={{ id: approval.id }}
          label="Approve and send"
          primary
          name={`Approve and send “${email.subject}”`}
        />
        <form method="post" action="/approvals/reject" class="inline-form">
          <Csrf session={session} />
          <input type="hidden" name="id" value={approval.id} />
          <label>
            Reason <span class="muted">(optional)</span>
            <input name="reason" maxlength={500} />
          </label>
          <button type="submit" class="danger" aria-label={`Reject “${email.subject}”`}>
            Reject
          </button>
        </form>
      </div>
    </article>
  );
};

async function approvalsPage(
  c: DashContext,
  session: Session,
  state: { error?: string; status?: number } = {},
) {
  const approvals = await listApprovals(c.var.deps, session.caller, { limit: 100 });
  const keyNames = new Map(
    (await listKeys(c.var.deps, session.user.id)).map((key) => [key.id, key.name] as const),
  );
  return renderPage(
    c,
    session,
    {
      title: 'Approvals',
      section: 'approvals',
      notice: noticeOf(c),
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <>
      <h1>Approvals</h1>
      <p class="lead">
        Sends your inboxes hold for you (their mode is approve_new or approve_all): nothing has left yet.
        Approved, a message goes out at once (or at the time it was scheduled for); rejected, it goes back to
        Drafts with your reason. Undecided, it goes back to Drafts when it expires.
      </p>
      {approvals.length === 0 ? (
        <p class="empty">Nothing waits for you.</p>
      ) : (
        approvals.map((approval) => <Waiting session={session} approval={approval} keyNames={keyNames} />)
      )}
    </>,
  );
}

export function registerApprovals(app: Hono<AppEnv>): void {
  app.get(
    '/approvals',
    signedIn((c, session) => approvalsPage(c, session)),
  );
  app.post(
    '/approvals/approve',
    formPost(approvalsPage, async (c, session, form) => {
      const { id } = parseWithContract(ApprovalParams, { id: form.id ?? '' });
      await approveSend(c.var.deps, session.caller, id);
      return '/approvals?done=approval-approved';
    }),
  );
  app.post(
    '/approvals/reject',
    formPost(approvalsPage, async (c, session, form) => {
      const { id } = parseWithContract(ApprovalParams, { id: form.id ?? '' });
      const { reason } = parseWithContract(RejectBody, form.reason?.trim() ? { reason: form.reason } : {});
      await rejectSend(c.var.deps, session.caller, id, reason);
      return '/approvals?done=approval-rejected';
    }),
  );
}
