import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { LabelsTable } from '../db/schema.js';

export type LabelRow = Selectable<LabelsTable>;

export class LabelStore {
  constructor(private readonly db: Db) {}

  /** A user's label by its id, or by its name case-insensitively. */
  resolve(userId: number, idOrName: string): LabelRow | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('labels')
        .selectAll()
        .where('user_id', '=', userId)
        .where((eb) =>
          eb.or([eb('id', '=', idOrName), eb(eb.fn('lower', ['name']), '=', idOrName.toLowerCase())]),
        ),
    );
  }
}
