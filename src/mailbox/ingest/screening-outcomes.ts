import type { ScreeningOutcome } from '../../store/screening-counts.js';
import type { MailboxDeps } from '../deps.js';

export type { ScreeningOutcome };

/**
 * Counts one screened message for `/metrics` (mailroom_screening_total). A counter that cannot
 * be written is logged, never allowed to change the answer the sender gets.
 */
export async function countScreening(deps: MailboxDeps, outcome: ScreeningOutcome): Promise<void> {
  try {
    await deps.store.screeningCounts.add(outcome);
  } catch (error) {
    deps.log.warn({ err: error, outcome }, 'counting a screening outcome failed');
  }
}
