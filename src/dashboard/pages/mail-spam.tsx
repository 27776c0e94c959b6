import type { SpamCheckView } from '../../mailbox/reading/email-view.js';

/** Rules shown by name; the rest are counted (rspamd lists dozens, most scoring 0, left out). */
const SYMBOLS_SHOWN = 8;

const points = (n: number) => (Math.round(n * 100) / 100).toString();

/** rspamd's verdict in the reader: score against its reject score, its action, the rules that counted. */
export const SpamVerdict = ({ spam }: { spam: SpamCheckView | null }) => {
  if (!spam) return <span class="muted">not checked</span>;
  const scored = spam.symbols.filter((s) => s.score !== 0);
  // A verdict rspamd forced (GTUBE, a prefilter) scores its rule 0: then the rule is still the reason.
  const counted = scored.length ? scored : spam.symbols;
  const shown = counted.slice(0, SYMBOLS_SHOWN);
  return (
    <span class="spam-verdict">
      <span class={`verdict verdict-${spam.action === 'no action' ? 'pass' : 'fail'}`}>{spam.action}</span>{' '}
      <span class="spam-score">
        score {points(spam.score)} of {points(spam.required)}
      </span>
      {shown.length ? (
        <ul class="plain small spam-symbols" aria-label="Spam rules that matched">
          {shown.map((s) => (
            <li>
              <code>{s.name}</code> {s.score > 0 ? '+' : ''}
              {points(s.score)}
            </li>
          ))}
          {counted.length > shown.length ? (
            <li class="muted">and {counted.length - shown.length} more</li>
          ) : null}
        </ul>
      ) : null}
    </span>
  );
};
