import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { LabelsTable } from '../db/schema.js';

export type LabelRow = Selectable<LabelsTable>;
export type LabelChanges = Partial<Pick<LabelRow, 'name' | 'color' | 'description'>>;

export class LabelStore {
  constructor(private readonly db: Db) {}

  /**
   * A user's label by its id, or by its name case-insensitively. Names are compared in JS
   * because SQLite's lower() folds ASCII only ("Été" must find "été").
   */
  async resolve(userId: number, idOrName: string): Promise<LabelRow | undefined> {
    return (await this.get(userId, idOrName)) ?? (await this.findByName(userId, idOrName));
  }

  async get(userId: number, id: string): Promise<LabelRow | undefined> {
    return await this.db.first(
      this.db.kysely.selectFrom('labels').selectAll().where('user_id', '=', userId).where('id', '=', id),
    );
  }

  async findByName(userId: number, name: string): Promise<LabelRow | undefined> {
    const wanted = name.toLowerCase();
    return (await this.allOf(userId)).find((l) => l.name.toLowerCase() === wanted);
  }

  async allOf(userId: number): Promise<LabelRow[]> {
    return await this.db.all(this.db.kysely.selectFrom('labels').selectAll().where('user_id', '=', userId));
  }

  /** Newest first. `beforeSeq` is the cursor: the rowid of the last label of the previous page. */
  async list(
    userId: number,
    beforeSeq: number | undefined,
    limit: number,
  ): Promise<(LabelRow & { seq: number })[]> {
    let q = this.db.kysely
      .selectFrom('labels')
      .selectAll()
      .select(sql<number>`rowid`.as('seq'))
      .where('user_id', '=', userId);
    if (beforeSeq !== undefined) q = q.where(sql<boolean>`rowid < ${beforeSeq}`);
    return await this.db.all(q.orderBy(sql`rowid`, 'desc').limit(limit));
  }

  async create(row: LabelRow): Promise<LabelRow> {
    await this.db.run(this.db.kysely.insertInto('labels').values(row));
    return row;
  }

  async update(userId: number, id: string, changes: LabelChanges, updatedAt: string): Promise<void> {
    await this.db.run(
      this.db.kysely
        .updateTable('labels')
        .set({ ...changes, updated_at: updatedAt })
        .where('user_id', '=', userId)
        .where('id', '=', id),
    );
  }

  /** Deletes the label; the foreign key takes it off every message. */
  async remove(userId: number, id: string): Promise<boolean> {
    return (
      (
        await this.db.run(
          this.db.kysely.deleteFrom('labels').where('user_id', '=', userId).where('id', '=', id),
        )
      ).changes > 0
    );
  }

  /** Puts labels on a message; labels it already carries are left as they are. */
  async apply(messageId: number, labelIds: string[]): Promise<void> {
    for (const labelId of labelIds) {
      await this.db.run(
        this.db.kysely
          .insertInto('message_labels')
          .values({ message_id: messageId, label_id: labelId })
          .onConflict((oc) => oc.doNothing()),
      );
    }
  }

  async unapply(messageId: number, labelId: string): Promise<boolean> {
    return (
      (
        await this.db.run(
          this.db.kysely
            .deleteFrom('message_labels')
            .where('message_id', '=', messageId)
            .where('label_id', '=', labelId),
        )
      ).changes > 0
    );
  }
}
