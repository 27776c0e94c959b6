import type { FC } from 'hono/jsx';
import type { DeliveryView } from '../../mailbox/reading/email-view.js';

/** Each delivery status of contract 8 in words a person reads without the manual. */
const MEANING: Record<string, { words: string; tone: 'pass' | 'fail' | 'other' }> = {
  delivered: { words: "accepted by the recipient's mail server", tone: 'pass' },
  queued: { words: 'waiting to be sent', tone: 'other' },
  deferred: {
    words: 'the receiving server asked to try later; Mailroom keeps trying for 5 days',
    tone: 'other',
  },
  failed: { words: 'not delivered; the bounce notice in your INBOX says why', tone: 'fail' },
  captured: { words: 'sandbox mode, not sent', tone: 'other' },
};

/** Where mail the account sent went, recipient by recipient (the Email's `delivery`). */
export const DeliveryStatuses: FC<{ delivery: DeliveryView[] }> = ({ delivery }) => (
  <>
    <ul class="plain delivery">
      {delivery.map((d) => {
        const meaning = MEANING[d.status] ?? { words: d.status, tone: 'other' };
        return (
          <li>
            <span class="wrap">{d.recipient}</span>{' '}
            <span class={`verdict verdict-${meaning.tone}`}>{d.status}</span>{' '}
            <span class="muted small">{meaning.words}</span>
          </li>
        );
      })}
    </ul>
    {delivery.some((d) => d.status === 'captured') ? (
      <p class="muted small">
        In sandbox mode outgoing mail stays on this server; an administrator sets MAILROOM_OUTBOUND to relay
        or direct to send it.
      </p>
    ) : null}
  </>
);
