import type { MailboxDeps } from '../mailbox/deps.js';
import { holdMailbox } from '../mailbox/sync/sync-lease.js';
import { Mutex } from './mutex.js';

/**
 * The turns of one connected inbox's sync and remote writes: first among this node's callers
 * (a Mutex, in arrival order), then across nodes (the mailbox lock in the database, held for the
 * section; at once on SQLite). So a write on one node never runs while another node's sync files
 * a folder of the same mailbox, nor two writes of two nodes at once.
 */
export class MailboxLock {
  private readonly local = new Mutex();

  constructor(
    private readonly deps: MailboxDeps,
    private readonly inboxId: number,
  ) {}

  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.local.run(async () => {
      const release = await holdMailbox(this.deps, this.inboxId);
      try {
        return await fn();
      } finally {
        await release();
      }
    });
  }
}
