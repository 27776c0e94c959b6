import type { Db } from '../db/connection.js';
import type { InboxesTable } from '../db/schema.js';
import type { Selectable } from 'kysely';
import { nowIso } from './ids.js';
import { removeUnusedSources } from './message-sources.js';

export type InboxRow = Selectable<InboxesTable>;

/** What an inbox's owner may change of its settings (contract 14). */
export type InboxSettingsPatch = Partial<
  Pick<InboxRow, 'send_mode' | 'paused' | 'send_limit_per_hour' | 'send_limit_per_day'>
>;

/** The folders every inbox has, with their RFC 6154 special-use roles. */
export const STANDARD_FOLDERS = [
  { name: 'INBOX', specialUse: '\\Inbox' },
  { name: 'Sent', specialUse: '\\Sent' },
  { name: 'Drafts', specialUse: '\\Drafts' },
  { name: 'Trash', specialUse: '\\Trash' },
  { name: 'Spam', specialUse: '\\Junk' },
  // This server's own role: sends waiting for approval or for their time (contract 15).
  { name: 'Outbox', specialUse: '\\Outbox' },
] as const;

export class InboxStore {
  constructor(private readonly db: Db) {}

  async create(input: {
    address: string;
    userId: number;
    kind: 'local' | 'imap';
    displayName?: string;
    remoteConfig?: string | null;
  }): Promise<InboxRow> {
    return this.db.transaction(async () => {
      const created_at = nowIso();
      const { lastInsertRowid: id } = await this.db.run(
        this.db.kysely.insertInto('inboxes').values({
          address: input.address.toLowerCase(),
          user_id: input.userId,
          kind: input.kind,
          display_name: input.displayName ?? '',
          remote_config: input.remoteConfig ?? null,
          created_at,
        }),
      );
      for (const folder of STANDARD_FOLDERS) {
        await this.db.run(
          this.db.kysely
            .insertInto('folders')
            .values({ inbox_id: id, name: folder.name, special_use: folder.specialUse, created_at }),
        );
      }
      return (await this.get(id))!;
    });
  }

  // The two lookups every inbound message makes: plain prepared statements, no query building.
  async get(id: number): Promise<InboxRow | undefined> {
    return (await this.db.rawFirst('SELECT * FROM inboxes WHERE id = ?', id)) as InboxRow | undefined;
  }

  async findByAddress(address: string): Promise<InboxRow | undefined> {
    return (await this.db.rawFirst('SELECT * FROM inboxes WHERE address = ?', address.toLowerCase())) as
      | InboxRow
      | undefined;
  }

  async list(userId?: number): Promise<InboxRow[]> {
    let q = this.db.kysely.selectFrom('inboxes').selectAll().orderBy('id');
    if (userId !== undefined) q = q.where('user_id', '=', userId);
    return await this.db.all(q);
  }

  /** Removes it with all its mail; the sources no message points at any more go with them. */
  async remove(id: number): Promise<boolean> {
    return await this.db.transaction(async () => {
      const removed =
        (await this.db.run(this.db.kysely.deleteFrom('inboxes').where('id', '=', id))).changes > 0;
      if (removed) await removeUnusedSources(this.db);
      return removed;
    });
  }

  /** Holds the inbox's row until the transaction ends (PostgreSQL; call inside a transaction). */
  async holdRow(id: number): Promise<void> {
    await this.db.rawFirst('SELECT id FROM inboxes WHERE id = ? FOR UPDATE', id);
  }

  /**
   * Locks the rows of the inboxes a transaction will take uids in, in the order of their ids, so
   * two transactions that each file into several inboxes (on two nodes) wait for each other
   * instead of deadlocking. SQLite's transaction already holds the whole database.
   */
  async holdInOrder(inboxIds: number[]): Promise<void> {
    const ids = [...new Set(inboxIds)];
    if (!this.db.dialect.rowLocks || ids.length < 2) return;
    await this.db.rawAll(
      `SELECT id FROM inboxes WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY id FOR UPDATE`,
      ...ids,
    );
  }

  /** Reserves the next uid of an inbox. Call inside the transaction that inserts the message. */
  async allocateUid(inboxId: number): Promise<number> {
    return this.allocateUids(inboxId, 1);
  }

  /**
   * Reserves `count` consecutive uids and answers the first: one row update for a whole batch
   * (an IMAP download batch). Uids left unused are gaps, which uids may have (contract 4: unique
   * and stable, not contiguous).
   *
   * On PostgreSQL a transaction that asks again for the same inbox (a group commit of inbound
   * mail) gets a block of UID_BLOCK uids at once and takes the next ones from it, and the unused
   * go back just before COMMIT: one round trip for the batch instead of one a message in the
   * chain every message of the batch waits on. The row stays locked to COMMIT either way.
   */
  async allocateUids(inboxId: number, count: number): Promise<number> {
    const blocks = this.db.perTransaction(UID_BLOCKS, () => new Map<number, UidBlock>());
    if (!blocks) return this.reserveUids(inboxId, count);
    const block = blocks.get(inboxId);
    if (block && block.next + count <= block.end) {
      const uid = block.next;
      block.next += count;
      return uid;
    }
    // The first ask of a transaction takes what it expects to need (a group commit says how many
    // messages it files; most other transactions file one), a later one a block.
    const expected = this.db.perTransaction(UIDS_EXPECTED, () => count)!;
    const size = Math.max(count, block ? UID_BLOCK : expected);
    const first = await this.reserveUids(inboxId, size);
    const reserved: UidBlock = { inboxId, next: first + count, end: first + size };
    blocks.set(inboxId, reserved);
    if (size > count) this.db.writeAtCommit(this.giveBackUnused, reserved);
    return first;
  }

  private async reserveUids(inboxId: number, count: number): Promise<number> {
    const row = (await this.db.rawFirst(
      'UPDATE inboxes SET uid_next = uid_next + ? WHERE id = ? RETURNING uid_next - ? AS uid',
      count,
      inboxId,
      count,
    )) as { uid: number } | undefined;
    if (!row) throw new Error(`inbox ${inboxId} vanished`);
    return row.uid;
  }

  /** Unused uids of a block back to the inbox, unless a later block of the transaction followed it. */
  private readonly giveBackUnused = async (blocks: UidBlock[]): Promise<void> => {
    for (const { inboxId, next, end } of blocks) {
      if (next === end) continue;
      await this.db.rawRun(
        'UPDATE inboxes SET uid_next = ? WHERE id = ? AND uid_next = ?',
        next,
        inboxId,
        end,
      );
    }
  };

  /** Replaces a connected inbox's sealed settings (an OAuth2 provider rotated the refresh token). */
  async setRemoteConfig(id: number, sealed: string): Promise<void> {
    await this.db.run(
      this.db.kysely.updateTable('inboxes').set({ remote_config: sealed }).where('id', '=', id),
    );
  }

  /** Changes an inbox's settings (contract 14); absent members stay. */
  async updateSettings(id: number, patch: InboxSettingsPatch): Promise<void> {
    if (Object.keys(patch).length === 0) return;
    await this.db.run(this.db.kysely.updateTable('inboxes').set(patch).where('id', '=', id));
  }

  async setSyncState(
    id: number,
    state: { sync_state?: string | null; sync_error?: string | null; last_sync_at?: string | null },
  ): Promise<void> {
    await this.db.run(this.db.kysely.updateTable('inboxes').set(state).where('id', '=', id));
  }
}

/** Uids of one inbox reserved by a transaction: `next` is the first not handed out yet. */
interface UidBlock {
  inboxId: number;
  next: number;
  end: number;
}

/**
 * The key under which a transaction says how many uids it expects to ask for per inbox
 * (Db.perTransaction): the group commit, the number of messages in its batch.
 */
export const UIDS_EXPECTED = {};

/** The key of a transaction's uid blocks (Db.perTransaction). */
const UID_BLOCKS = {};

/** Uids a transaction reserves at once when it asks a second time for the same inbox. */
const UID_BLOCK = 64;
