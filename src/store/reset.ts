import type { Db } from '../db/connection.js';
import { removeUnusedSources } from './message-sources.js';

/** Hosted inboxes: a connected (IMAP) inbox's mail lives on its own server and is left alone. */
const LOCAL = `SELECT id FROM inboxes WHERE kind = 'local'`;

/**
 * Bulk clearing for test suites between tests (the in-process `reset()`), each in one
 * transaction. The search index has no foreign key on SQLite (FTS5), so its rows go first.
 */
export class ResetStore {
  constructor(private readonly db: Db) {}

  /**
   * Every hosted inbox back to empty: mail (sources, attachments, labels, deliveries), threads,
   * custom folders, sends waiting in Outbox, whom it exchanged mail with (approve_new), their
   * events and webhook deliveries, uid counters from 1; and every user's
   * labels, webhooks, allow and block lists, suppressions and idempotency keys. Users, keys, domains and inboxes stay.
   */
  async mail(): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.rawRun(`DELETE FROM held_sends WHERE inbox_id IN (${LOCAL})`);
      await this.db.rawRun(`DELETE FROM correspondents WHERE inbox_id IN (${LOCAL})`);
      await this.db.rawRun(
        `DELETE FROM messages_fts WHERE rowid IN (SELECT id FROM messages WHERE inbox_id IN (${LOCAL}))`,
      );
      await this.db.rawRun(`DELETE FROM messages WHERE inbox_id IN (${LOCAL})`);
      await removeUnusedSources(this.db);
      await this.db.rawRun(`DELETE FROM threads WHERE inbox_id IN (${LOCAL})`);
      await this.db.rawRun(`DELETE FROM folders WHERE special_use IS NULL AND inbox_id IN (${LOCAL})`);
      await this.db.rawRun(`DELETE FROM events WHERE inbox_id IS NULL OR inbox_id IN (${LOCAL})`);
      await this.db.rawRun('DELETE FROM webhooks');
      await this.db.rawRun('DELETE FROM labels');
      await this.db.rawRun('DELETE FROM address_lists');
      await this.db.rawRun('DELETE FROM suppressions');
      await this.db.rawRun('DELETE FROM idempotency_keys');
      await this.db.rawRun(`UPDATE inboxes SET uid_next = 1 WHERE kind = 'local'`);
    });
  }

  /** Every user (with all they own: keys, inboxes, mail, labels, webhooks, events) and every domain. */
  async everything(): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.rawRun('DELETE FROM messages_fts WHERE rowid IN (SELECT id FROM messages)');
      await this.db.rawRun('DELETE FROM users');
      await removeUnusedSources(this.db);
      await this.db.rawRun('DELETE FROM events');
      await this.db.rawRun('DELETE FROM domains');
    });
  }
}
