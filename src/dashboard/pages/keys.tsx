import type { Hono } from 'hono';
import { CreateKeyBody } from '../../contract/admin.js';
import { parseWithContract } from '../../contract/validation-messages.js';
import type { AppEnv } from '../../http/context.js';
import type { Permission } from '../../mailbox/caller.js';
import { DEFAULT_KEY_PERMISSIONS, PERMISSIONS } from '../../mailbox/caller.js';
import { createKey, listKeys, revokeKey } from '../../mailbox/operations/admin.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { listAccounts } from '../../mailbox/reading/accounts.js';
import { ColumnHeads, Copyable, Csrf, PostButton, Time, noticeOf, problemOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { baseUrlOf, formAll, formOf, signedIn } from '../session.js';

/** The key form names the key and its reach; its user is the one signed in. */
const KeyForm = CreateKeyBody.omit({ user: true });

/** What each permission lets a key do, in the words of contract 14. */
const PERMISSION_WORDS: Record<Permission, string> = {
  read: 'list, read and search mail, threads, attachments, events, waiting',
  organise: 'flags, move, delete, labels, folders',
  send: 'send, reply, forward, drafts',
  manage: 'webhooks, lists, suppressions, inbox settings, audit trail',
  approve: 'decide sends waiting for approval',
};

/** What the form was given, shown again when it is refused so nothing has to be typed twice. */
interface KeyFormValues {
  name: string;
  /** Null for all inboxes. */
  inboxes: string[] | null;
  permissions: readonly string[];
}

const FRESH_FORM: KeyFormValues = { name: '', inboxes: null, permissions: DEFAULT_KEY_PERMISSIONS };

const ReachFields = ({ inboxes, typed }: { inboxes: string[]; typed: KeyFormValues }) => (
  <>
    <fieldset>
      <legend>Inboxes it reaches</legend>
      <label class="check">
        <input type="radio" name="reach" value="all" checked={typed.inboxes === null} /> All my inboxes, and
        ones added later
      </label>
      <label class="check">
        <input type="radio" name="reach" value="some" checked={typed.inboxes !== null} /> Only the inboxes
        ticked:
      </label>
      {inboxes.map((address) => (
        <label class="check">
          <input type="checkbox" name="inboxes" value={address} checked={typed.inboxes?.includes(address)} />{' '}
          {address}
        </label>
      ))}
    </fieldset>
    <fieldset>
      <legend>What it may do</legend>
      {PERMISSIONS.map((permission) => (
        <label class="check">
          <input
            type="checkbox"
            name="permissions"
            value={permission}
            checked={typed.permissions.includes(permission)}
          />{' '}
          <strong>{permission}</strong> <span class="muted">({PERMISSION_WORDS[permission]})</span>
        </label>
      ))}
    </fieldset>
  </>
);

interface KeysState {
  created?: { key: string; name: string };
  typed?: KeyFormValues;
  error?: string;
  status?: number;
}

async function keysPage(c: DashContext, session: Session, state: KeysState = {}) {
  const deps = c.var.deps;
  const keys = await listKeys(deps, session.user.id);
  const inboxes = (await listAccounts(deps, session.caller)).map((account) => account.address);
  const inbox = inboxes[0] ?? 'you@example.com';
  const active = keys.filter((k) => !k.revoked_at);
  const revoked = keys.filter((k) => k.revoked_at);
  const curl = state.created
    ? `curl -s -H "Authorization: Bearer ${state.created.key}" "${baseUrlOf(c)}/api/v1/emails?account=${inbox}"`
    : '';
  return renderPage(
    c,
    session,
    {
      title: 'API keys',
      section: 'keys',
      notice: noticeOf(c),
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <>
      <h1>API keys</h1>
      <p class="lead">
        An agent sends its key with every request: <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
      {state.created ? (
        <section class="panel reveal" aria-labelledby="new-key">
          <h2 id="new-key">Your new key “{state.created.name || 'unnamed'}”</h2>
          <p>
            <strong>Copy it now: it is shown only this once.</strong> Mailroom keeps only its fingerprint.
          </p>
          <Copyable id="new-key-value" value={state.created.key} button="Copy key" testId="new-key" />
          <p>Try it:</p>
          <Copyable id="new-key-curl" value={curl} button="Copy command" wrap />
        </section>
      ) : null}
      <section class="panel">
        <h2>Create a key</h2>
        <form method="post" action="/keys" class="stack">
          <Csrf session={session} />
          <label>
            Name <span class="muted">(what uses it)</span>
            <input name="name" maxlength={100} placeholder="support-agent" value={state.typed?.name} />
          </label>
          <ReachFields inboxes={inboxes} typed={state.typed ?? FRESH_FORM} />
          <div>
            <button type="submit" class="primary">
              Create key
            </button>
          </div>
        </form>
      </section>
      <section>
        <h2>Active keys</h2>
        {active.length === 0 ? (
          <p class="empty">No active key. Create one above to let an agent in.</p>
        ) : (
          <div class="table-wrap">
            <table class="cards-sm">
              <ColumnHeads
                names={['Name', 'Key starts with', 'Inboxes', 'Permissions', 'Created', 'Last used']}
                actions
              />
              <tbody>
                {active.map((k) => (
                  <tr>
                    <td data-label="Name">{k.name || <span class="muted">unnamed</span>}</td>
                    <td data-label="Starts with">
                      <code>{k.prefix}…</code>
                    </td>
                    <td data-label="Inboxes">{k.inboxes === null ? 'All' : k.inboxes.join(', ')}</td>
                    <td data-label="Permissions">{k.permissions.join(', ')}</td>
                    <td data-label="Created">
                      <Time iso={k.created_at} />
                    </td>
                    <td data-label="Last used">
                      <Time iso={k.last_used_at} />
                    </td>
                    <td class="actions">
                      <PostButton
                        session={session}
                        action={`/keys/${encodeURIComponent(k.id)}/revoke`}
                        label="Revoke"
                        name={`Revoke key ${k.name || k.prefix}`}
                        danger
                        confirm={`Revoke the key ${k.name || k.prefix}? Agents using it stop working at once.`}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {revoked.length > 0 ? (
        <details class="section">
          <summary>Revoked keys ({revoked.length})</summary>
          <ul class="plain">
            {revoked.map((k) => (
              <li>
                {k.name || 'unnamed'} <code>{k.prefix}…</code>, revoked <Time iso={k.revoked_at} />
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </>,
  );
}

export function registerKeys(app: Hono<AppEnv>): void {
  app.get(
    '/keys',
    signedIn((c, session) => keysPage(c, session)),
  );
  app.post(
    '/keys',
    signedIn(async (c, session) => {
      const form = await formOf(c);
      const typed: KeyFormValues = {
        name: (form.name ?? '').trim(),
        inboxes: form.reach === 'some' ? await formAll(c, 'inboxes') : null,
        permissions: await formAll(c, 'permissions'),
      };
      try {
        const fields = parseWithContract(KeyForm, typed);
        // Answered as a page, not a redirect: the key must not travel in a URL.
        const { key } = await createKey(c.var.deps, session.user.id, fields, c.var.audit);
        return await keysPage(c, session, { created: { key, name: fields.name ?? '' } });
      } catch (error) {
        return keysPage(c, session, { ...problemOf(error), typed });
      }
    }),
  );
  app.post(
    '/keys/:id/revoke',
    signedIn(async (c, session) => {
      try {
        await revokeKey(c.var.deps, c.req.param('id') ?? '', session.user.id, c.var.audit);
      } catch (error) {
        return keysPage(c, session, problemOf(error));
      }
      return c.redirect('/keys?done=key-revoked', 303);
    }),
  );
}
