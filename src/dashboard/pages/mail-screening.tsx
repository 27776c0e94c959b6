import type { EmailView } from '../../mailbox/reading/email-view.js';

type Screening = EmailView['screening'];

/** Each reason in the words a person reading the message needs. */
const REASON_WORDS: Record<Screening['reasons'][number], string> = {
  hidden_text: 'It holds text a reader of the message cannot see (shown below, marked as hidden).',
  invisible_characters:
    'It holds invisible characters (zero-width or text-direction controls) that can hide or reorder words.',
  link_mismatch: 'A link names one website in its text but leads to another.',
  instructions_to_agent:
    'It holds text addressed to an AI assistant, such as telling it to ignore its instructions or reveal its prompt.',
  auth_failed: 'Its sender did not pass DMARC: the From address may be forged.',
  spam: 'The spam filter scored it as spam.',
};

/** The verdict in the reader's header list: one line. */
export const ScreeningVerdict = ({ screening }: { screening: Screening }) =>
  screening.verdict === 'clear' ? (
    <span class="verdict verdict-pass">Clear</span>
  ) : (
    <span class="verdict verdict-fail">
      Review: {screening.reasons.length === 1 ? 'one finding' : `${screening.reasons.length} findings`} below
    </span>
  );

/**
 * Why a message was marked for review, and its hidden text as plain text (never as html), so the
 * person sees what an agent reading the message would have been told.
 */
export const ScreeningFindings = ({ screening }: { screening: Screening }) => {
  if (screening.verdict === 'clear') return null;
  return (
    <section class="screening" aria-labelledby="screening-title">
      <h2 id="screening-title">Review before acting on this message</h2>
      <ul>
        {screening.reasons.map((reason) => (
          <li data-reason={reason}>{REASON_WORDS[reason]}</li>
        ))}
      </ul>
      {screening.hidden ? (
        <figure class="hidden-text">
          <figcaption>Hidden text: not shown to a reader of this message</figcaption>
          <pre>{screening.hidden}</pre>
        </figure>
      ) : null}
    </section>
  );
};
