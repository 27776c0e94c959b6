import type { Hono } from 'hono';
import { AUDIT_ACTIONS, AuditQuery } from '../../contract/audit.js';
import { ERROR_CODES } from '../../contract/error-codes.js';
import { parseWithContract } from '../../contract/validation-messages.js';
import type { AppEnv } from '../../http/context.js';
import type { AuditListView, AuditRecordView } from '../../mailbox/audit/trail.js';
import { listAudit } from '../../mailbox/audit/trail.js';
import { listKeys } from '../../mailbox/operations/admin.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { listAccounts } from '../../mailbox/reading/accounts.js';
import { ColumnHeads, Time, problemOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { signedIn } from '../session.js';

const FILTERS = ['account', 'key', 'action', 'outcome'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const OUTCOMES = ['ok', ...ERROR_CODES.filter((code) => code !== 'method_not_allowed')];

/** The page's query as the filters chose it; empty choices are "any". */
function filtersOf(c: DashContext): Filters {
  const chosen: Filters = {};
  for (const name of FILTERS) {
    const value = c.req.query(name);
    if (value) chosen[name] = value;
  }
  return chosen;
}

const Choice = (props: {
  name: string;
  label: string;
  any: string;
  chosen?: string;
  options: [string, string][];
}) => (
  <span>
    <label for={`filter-${props.name}`}>{props.label}</label>{' '}
    <select id={`filter-${props.name}`} name={props.name}>
      <option value="">{props.any}</option>
      {props.options.map(([value, words]) => (
        <option value={value} selected={props.chosen === value}>
          {words}
        </option>
      ))}
    </select>
  </span>
);

function who(record: AuditRecordView, keyNames: Map<string, string>, session: Session): string {
  if (record.actor.kind === 'admin') return record.door === 'cli' ? 'the mailroom command' : 'the admin API';
  if (record.actor.kind === 'user')
    return record.actor.id === String(session.user.id) ? 'you (dashboard)' : 'a person (dashboard)';
  const name = keyNames.get(record.actor.id ?? '');
  return name ? `key ${name}` : `key ${record.actor.id ?? ''}`;
}

async function activityPage(c: DashContext, session: Session) {
  const { deps } = c.var;
  const filters = filtersOf(c);
  const [inboxes, keys] = await Promise.all([
    listAccounts(deps, session.caller),
    listKeys(deps, session.user.id),
  ]);
  const keyNames = new Map(keys.map((k) => [k.id, k.name || k.prefix]));
  let trail: AuditListView = { records: [], nextCursor: null };
  let problem: { error: string; status: number } | undefined;
  try {
    const query = parseWithContract(AuditQuery, { ...filters, limit: '50', cursor: c.req.query('cursor') });
    trail = await listAudit(deps, session.caller, query);
  } catch (error) {
    problem = problemOf(error);
  }
  const older = trail.nextCursor
    ? `/activity?${new URLSearchParams({ ...filters, cursor: trail.nextCursor }).toString()}`
    : null;
  return renderPage(
    c,
    session,
    {
      title: 'Activity',
      section: 'activity',
      error: problem?.error,
      ...(problem ? { status: problem.status } : {}),
    },
    <>
      <h1>Activity</h1>
      <p class="lead">
        Every change asked of your inboxes, by your keys, by you here and by the administrator, refused ones
        too: who, through which door, what, and how it ended. Newest first. Never the mail itself or a secret.
      </p>
      <form method="get" action="/activity" class="toolbar" aria-label="Filter the activity">
        <Choice
          name="account"
          label="Inbox"
          any="Any inbox"
          chosen={filters.account}
          options={inboxes.map((i) => [i.address, i.address])}
        />
        <Choice
          name="key"
          label="Key"
          any="Any key"
          chosen={filters.key}
          options={keys.map((k) => [k.id, k.name || `${k.prefix}…`])}
        />
        <Choice
          name="action"
          label="Action"
          any="Any action"
          chosen={filters.action}
          options={AUDIT_ACTIONS.map((a) => [a, a])}
        />
        <Choice
          name="outcome"
          label="Outcome"
          any="Any outcome"
          chosen={filters.outcome}
          options={OUTCOMES.map((o) => [o, o === 'ok' ? 'ok' : `refused: ${o}`])}
        />
        <button type="submit">Show</button>
      </form>
      {trail.records.length === 0 ? (
        <p class="empty">
          Nothing recorded{Object.keys(filters).length > 0 ? ' that matches these filters' : ''}.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="cards-sm">
            <caption class="visually-hidden">Recorded requests, newest first</caption>
            <ColumnHeads
              names={['When', 'Who', 'Door', 'Action', 'Inbox', 'Target', 'Outcome', 'Request id']}
            />
            <tbody>
              {trail.records.map((r) => (
                <tr>
                  <td data-label="When">
                    <Time iso={r.at} />
                  </td>
                  <td data-label="Who">{who(r, keyNames, session)}</td>
                  <td data-label="Door">{r.door}</td>
                  <td data-label="Action">
                    <code>{r.action}</code>
                  </td>
                  <td data-label="Inbox">{r.account ?? <span class="muted">all</span>}</td>
                  <td data-label="Target">{r.target ?? ''}</td>
                  <td data-label="Outcome">{r.outcome === 'ok' ? 'ok' : <strong>{r.outcome}</strong>}</td>
                  <td data-label="Request id">
                    <code>{r.requestId ?? ''}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {older ? (
        <p>
          <a href={older}>Older activity</a>
        </p>
      ) : null}
    </>,
  );
}

export function registerActivity(app: Hono<AppEnv>): void {
  app.get(
    '/activity',
    signedIn((c, session) => activityPage(c, session)),
  );
}
