import type { Db } from '../db/connection.js';

/** The outcomes GET /metrics counts as mailroom_screening_total (contract 16). */
export const SCREENING_OUTCOMES = ['rejected', 'tempfail', 'spam', 'virus', 'review'] as const;
export type ScreeningOutcome = (typeof SCREENING_OUTCOMES)[number];

/** How often inbound screening ended each way, one row per outcome: every node adds to the same row. */
export class ScreeningCountStore {
  constructor(private readonly db: Db) {}

  async add(outcome: ScreeningOutcome): Promise<void> {
    await this.db.run(
      this.db.kysely
        .insertInto('screening_counts')
        .values({ outcome, count: 1 })
        .onConflict((oc) =>
          oc.column('outcome').doUpdateSet((eb) => ({ count: eb('screening_counts.count', '+', 1) })),
        ),
    );
  }

  async counts(): Promise<Record<ScreeningOutcome, number>> {
    const rows = await this.db.all(
      this.db.kysely.selectFrom('screening_counts').select(['outcome', 'count']),
    );
    const counts = Object.fromEntries(SCREENING_OUTCOMES.map((o) => [o, 0])) as Record<
      ScreeningOutcome,
      number
    >;
    for (const row of rows) {
      if ((SCREENING_OUTCOMES as readonly string[]).includes(row.outcome))
        counts[row.outcome as ScreeningOutcome] = Number(row.count);
    }
    return counts;
  }
}
