import type { Hono } from 'hono';
import {
  AddListEntryBody,
  LIST_DIRECTIONS,
  LIST_TYPES,
  ListParams,
  SuppressionParam,
} from '../../contract/lists.js';
import { parseWithContract } from '../../contract/validation-messages.js';
import type { AppEnv } from '../../http/context.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import type { ListEntryView, ListRef } from '../../mailbox/policy/lists.js';
import { addEntry, listEntries, removeEntry } from '../../mailbox/policy/lists.js';
import { liftSuppression, listSuppressions } from '../../mailbox/policy/suppressions.js';
import { listAccounts } from '../../mailbox/reading/accounts.js';
import { ColumnHeads, Csrf, PostButton, Time, noticeOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { formOf, formPost, signedIn } from '../session.js';

type Direction = (typeof LIST_DIRECTIONS)[number];

interface DirectionWords {
  title: string;
  allow: string;
  block: string;
  /** What an empty allow list means: nobody is held back by it. */
  anyone: string;
  help: string;
}

const DIRECTION_WORDS: Record<Direction, DirectionWords> = {
  send: {
    title: 'Sending',
    allow: 'May send to',
    block: 'Never sends to',
    anyone: 'May send to: anyone not blocked (no allow list).',
    help: 'A send with any recipient refused here is refused whole: nothing goes out.',
  },
  receive: {
    title: 'Receiving',
    allow: 'Takes mail from',
    block: 'Refuses mail from',
    anyone: 'Takes mail from: anyone not blocked (no allow list).',
    help: 'A blocked envelope sender is refused over SMTP; a blocked or not allowed From goes to Spam.',
  },
};

interface PageState {
  error?: string;
  status?: number;
}

/** Where a list form leads back to: the inbox's lists page, or the user-wide one. */
const pageOf = (account: string | undefined) =>
  account ? `/inboxes/${encodeURIComponent(account)}/lists` : '/lists';

const EntryTable = ({
  session,
  entries,
  account,
  caption,
  empty,
}: {
  session: Session;
  entries: ListEntryView[];
  account: string | undefined;
  caption: string;
  empty: string;
}) =>
  entries.length === 0 ? (
    <p class="empty">{empty}</p>
  ) : (
    <div class="table-wrap">
      <table>
        <caption>{caption}</caption>
        <ColumnHeads names={['Address or domain', 'Reason', 'Added']} actions />
        <tbody>
          {entries.map((e) => (
            <tr>
              <td data-label="Address or domain">{e.entry}</td>
              <td data-label="Reason">{e.reason ?? <span class="muted">—</span>}</td>
              <td data-label="Added">
                <Time iso={e.created_at} />
              </td>
              <td class="actions">
                <PostButton
                  session={session}
                  action="/lists/remove"
                  fields={{
                    direction: e.direction,
                    type: e.type,
                    entry: e.entry,
                    ...(account ? { account } : {}),
                  }}
                  label="Remove"
                  name={`Remove ${e.entry} from ${caption}`}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );

async function listsPage(
  c: DashContext,
  session: Session,
  account: string | undefined,
  state: PageState = {},
) {
  const { deps } = c.var;
  const caller = session.caller;
  const lists = new Map<string, ListEntryView[]>();
  for (const direction of LIST_DIRECTIONS) {
    for (const type of LIST_TYPES) {
      lists.set(`${direction}/${type}`, await listEntries(deps, caller, { direction, type, account }));
    }
  }
  const inboxes = await listAccounts(deps, session.caller);
  const title = account ? `Lists of ${account}` : 'Lists for all inboxes';
  return renderPage(
    c,
    session,
    {
      title,
      section: 'lists',
      notice: noticeOf(c),
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <>
      <h1>{title}</h1>
      <p class="lead">
        {account
          ? 'These entries hold for this inbox and are looked at before the lists for all inboxes.'
          : 'These entries hold for every inbox; an inbox’s own entries are looked at first.'}{' '}
        An entry is an address or a domain (a domain covers its subdomains). An address comes before its
        domain, and block before allow at the same place. Once an allow list has an entry, whoever is not on
        it is refused.
      </p>
      <nav aria-label="Lists of each inbox" class="toolbar">
        <a href="/lists" aria-current={account ? undefined : 'page'}>
          All inboxes
        </a>
        {inboxes.map((i) => (
          <a href={pageOf(i.address)} aria-current={i.address === account ? 'page' : undefined}>
            {i.address}
          </a>
        ))}
      </nav>
      {LIST_DIRECTIONS.map((direction) => {
        const words = DIRECTION_WORDS[direction];
        return (
          <section class="panel" aria-labelledby={`${direction}-title`}>
            <h2 id={`${direction}-title`}>{words.title}</h2>
            <p class="muted">{words.help}</p>
            {LIST_TYPES.map((type) => (
              <EntryTable
                session={session}
                entries={lists.get(`${direction}/${type}`) ?? []}
                account={account}
                caption={words[type]}
                empty={type === 'allow' ? words.anyone : `${words.block}: nobody.`}
              />
            ))}
            <form method="post" action="/lists/add" class="stack">
              <Csrf session={session} />
              <input type="hidden" name="direction" value={direction} />
              {account ? <input type="hidden" name="account" value={account} /> : null}
              <label>
                Address or domain
                <input name="entry" required maxlength={254} placeholder="bob@example.com or example.com" />
              </label>
              <fieldset>
                <legend>List</legend>
                {LIST_TYPES.map((type, i) => (
                  <label class="check">
                    <input type="radio" name="type" value={type} checked={i === 1} /> {words[type]}
                  </label>
                ))}
              </fieldset>
              <label>
                Reason <span class="muted">(optional)</span>
                <input name="reason" maxlength={500} />
              </label>
              <button type="submit" class="primary">
                Add to {words.title.toLowerCase()} lists
              </button>
            </form>
          </section>
        );
      })}
    </>,
  );
}

async function suppressionsPage(c: DashContext, session: Session, state: PageState = {}) {
  const suppressions = await listSuppressions(c.var.deps, session.caller);
  return renderPage(
    c,
    session,
    {
      title: 'Suppressions',
      section: 'suppressions',
      notice: noticeOf(c),
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <>
      <h1>Suppressions</h1>
      <p class="lead">
        Addresses that failed for good (the receiving server refused them, or a bounce came back). No inbox of
        yours sends to them until you lift the suppression.
      </p>
      {suppressions.length === 0 ? (
        <p class="empty">No address is suppressed.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <ColumnHeads names={['Address', 'Reason', 'Since']} actions />
            <tbody>
              {suppressions.map((s) => (
                <tr>
                  <td data-label="Address">{s.address}</td>
                  <td data-label="Reason">{s.reason}</td>
                  <td data-label="Since">
                    <Time iso={s.created_at} />
                  </td>
                  <td class="actions">
                    <PostButton
                      session={session}
                      action="/suppressions/lift"
                      fields={{ address: s.address }}
                      label="Lift"
                      name={`Lift the suppression of ${s.address}`}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>,
  );
}

/** The list a form names (direction, type, and the inbox when it has one), parsed as the API parses it. */
function refOf(form: Record<string, string>): ListRef {
  const params = parseWithContract(ListParams, { direction: form.direction ?? '', type: form.type ?? '' });
  return { ...params, ...(form.account ? { account: form.account } : {}) };
}

export function registerLists(app: Hono<AppEnv>): void {
  app.get(
    '/lists',
    signedIn((c, session) => listsPage(c, session, undefined)),
  );
  app.get(
    '/inboxes/:address/lists',
    signedIn((c, session) => listsPage(c, session, c.req.param('address'))),
  );
  app.get(
    '/suppressions',
    signedIn((c, session) => suppressionsPage(c, session)),
  );
  // A refused form draws the page it came from again, with what went wrong.
  const againFrom = async (c: DashContext, session: Session, problem: PageState) =>
    listsPage(c, session, (await formOf(c)).account || undefined, problem);
  app.post(
    '/lists/add',
    formPost(againFrom, async (c, session, form) => {
      const ref = refOf(form);
      const body = parseWithContract(AddListEntryBody, {
        entry: form.entry ?? '',
        ...(form.reason?.trim() ? { reason: form.reason.trim() } : {}),
      });
      await addEntry(c.var.deps, session.caller, ref, body);
      return `${pageOf(ref.account)}?done=list-added`;
    }),
  );
  app.post(
    '/lists/remove',
    formPost(againFrom, async (c, session, form) => {
      const ref = refOf(form);
      await removeEntry(c.var.deps, session.caller, ref, form.entry ?? '');
      return `${pageOf(ref.account)}?done=list-removed`;
    }),
  );
  app.post(
    '/suppressions/lift',
    formPost(suppressionsPage, async (c, session, form) => {
      const { address } = parseWithContract(SuppressionParam, { address: form.address ?? '' });
      await liftSuppression(c.var.deps, session.caller, address);
      return '/suppressions?done=suppression-lifted';
    }),
  );
}
