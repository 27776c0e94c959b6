import type { Hono } from 'hono';
import { CreateLabelBody, UpdateLabelBody } from '../../contract/labels.js';
import { parseWithContract } from '../../contract/validation-messages.js';
import type { AppEnv } from '../../http/context.js';
import {
  LABEL_PALETTE,
  createLabel,
  deleteLabel,
  listLabels,
  updateLabel,
} from '../../mailbox/organising/labels.js';
import type { Session } from '../../mailbox/operations/sign-in.js';
import { Csrf, PostButton, noticeOf, renderPage } from '../render.js';
import type { DashContext } from '../session.js';
import { formPost, signedIn } from '../session.js';
import { LabelDot } from './mail-parts.js';

const COLOR_NAMES: Record<string, string> = {
  '#6366f1': 'Indigo',
  '#8b5cf6': 'Violet',
  '#a855f7': 'Purple',
  '#d946ef': 'Fuchsia',
  '#ec4899': 'Pink',
  '#ef4444': 'Red',
  '#f97316': 'Orange',
  '#f59e0b': 'Amber',
  '#22c55e': 'Green',
  '#0ea5e9': 'Sky',
};

/** The palette as radio buttons, each with its swatch: colour never the only cue, the name is there too. */
const Palette = ({ name, current, idPrefix }: { name: string; current?: string; idPrefix: string }) => (
  <fieldset class="palette">
    <legend>Colour</legend>
    {LABEL_PALETTE.map((color, i) => (
      <label class="swatch" for={`${idPrefix}-${i}`}>
        <input
          type="radio"
          id={`${idPrefix}-${i}`}
          name={name}
          value={color}
          checked={current ? current === color : i === 0}
        />
        <LabelDot color={color} />
        <span>{COLOR_NAMES[color]}</span>
      </label>
    ))}
  </fieldset>
);

async function labelsPage(c: DashContext, session: Session, state: { error?: string; status?: number } = {}) {
  const { labels } = await listLabels(c.var.deps, session.caller, 200);
  return renderPage(
    c,
    session,
    {
      title: 'Labels',
      section: 'labels',
      notice: noticeOf(c),
      error: state.error,
      ...(state.status ? { status: state.status } : {}),
    },
    <>
      <h1>Labels</h1>
      <p class="lead">Labels sort mail across folders; agents set them through the API too.</p>
      {labels.length === 0 ? <p class="empty">No label yet.</p> : null}
      <ul class="cards">
        {labels.map((l) => (
          <li class="panel">
            <details>
              <summary>
                <LabelDot color={l.color} /> <strong>{l.name}</strong>
                {l.description ? <span class="muted"> · {l.description}</span> : null}
              </summary>
              <form method="post" action={`/labels/${encodeURIComponent(l.id)}`} class="stack">
                <Csrf session={session} />
                <label>
                  Name
                  <input name="name" value={l.name} required maxlength={50} />
                </label>
                <Palette name="color" current={l.color} idPrefix={`c-${l.id}`} />
                <div class="toolbar">
                  <button type="submit" class="primary">
                    Save
                  </button>
                </div>
              </form>
              <PostButton
                session={session}
                action={`/labels/${encodeURIComponent(l.id)}/delete`}
                label="Delete label"
                danger
                confirm={`Delete the label ${l.name}? Mail keeps its folders.`}
              />
            </details>
          </li>
        ))}
      </ul>
      <section class="panel">
        <h2>Create a label</h2>
        <form method="post" action="/labels" class="stack">
          <Csrf session={session} />
          <label>
            Name
            <input name="name" required maxlength={50} placeholder="needs-reply" />
          </label>
          <Palette name="color" idPrefix="new" />
          <button type="submit" class="primary">
            Create label
          </button>
        </form>
      </section>
    </>,
  );
}

/** The form's fields, for the API's own schemas to parse (its limits and words). */
const labelFields = (form: Record<string, string>) => ({
  name: form.name ?? '',
  ...(form.color ? { color: form.color } : {}),
});

export function registerLabels(app: Hono<AppEnv>): void {
  app.get(
    '/labels',
    signedIn((c, session) => labelsPage(c, session)),
  );
  const act = (
    path: string,
    run: (c: DashContext, session: Session, form: Record<string, string>) => Promise<string>,
  ) => app.post(path, formPost(labelsPage, run));
  act('/labels', async (c, session, form) => {
    await createLabel(c.var.deps, session.caller, parseWithContract(CreateLabelBody, labelFields(form)));
    return '/labels?done=label-created';
  });
  act('/labels/:id', async (c, session, form) => {
    const changes = parseWithContract(UpdateLabelBody, labelFields(form));
    await updateLabel(c.var.deps, session.caller, c.req.param('id') ?? '', changes);
    return '/labels?done=label-saved';
  });
  act('/labels/:id/delete', async (c, session) => {
    await deleteLabel(c.var.deps, session.caller, c.req.param('id') ?? '');
    return '/labels?done=label-deleted';
  });
}
