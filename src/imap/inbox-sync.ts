import { setTimeout as delay } from 'node:timers/promises';
import type { ImapFlow } from 'imapflow';
import type { RemoteConfig } from '../mailbox/remote.js';
import type { MailboxDeps } from '../mailbox/deps.js';
import { publicOnlyResolver } from '../mailbox/connect/private-servers.js';
import type { SyncState } from '../mailbox/sync/connected-inboxes.js';
import { recordSyncState, syncedInbox } from '../mailbox/sync/connected-inboxes.js';
import type { SyncedFolder } from '../mailbox/sync/folder-progress.js';
import { syncedFolder } from '../mailbox/sync/folder-progress.js';
import type { SyncLease } from '../mailbox/sync/new-mail.js';
import { mapFolders } from '../mailbox/sync/folder-map.js';
import { dropFolderCopy, dropGoneFolders } from '../mailbox/sync/gone-folders.js';
import type { Resolver } from '../net/reach.js';
import type { TokenSource } from './connection.js';
import { closeImap, hostOf, openImap } from './connection.js';
import { syncFolder } from './folder-sync.js';
import type { MailboxLock } from './mailbox-lock.js';
import type { ImapSyncOptions } from './options.js';
import { backoffMs } from './options.js';

/**
 * The sync of one connected inbox: connect, map folders, sync every folder, then IDLE on INBOX
 * (new mail arrives within a round trip) with every folder compared again each `pollMs`. A lost
 * connection or any failure shows as state `error` with its message, and the loop reconnects
 * after a doubling backoff.
 */
export class InboxSync {
  /** Aborted by stop(): every wait of the loop (backoff, IDLE) ends on it, even one begun after. */
  private readonly stopping = new AbortController();
  private client: ImapFlow | null = null;
  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }
  private done: Promise<void> | null = null;
  /** Set when the servers must stay public: every reconnect checks the address again. */
  private readonly publicOnly: Resolver | undefined;

  constructor(
    private readonly deps: MailboxDeps,
    readonly inboxId: number,
    private readonly config: RemoteConfig,
    private readonly lock: MailboxLock,
    private readonly options: ImapSyncOptions,
    private readonly fence: SyncLease | null,
    private readonly tokens?: TokenSource,
  ) {
    this.publicOnly = publicOnlyResolver(config, deps);
  }

  start(): void {
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.client?.close();
    await this.done;
  }

  private async loop(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      try {
        await this.setState('connecting');
        const checkMs = this.options.checkMs ?? this.deps.config.imapCheckSeconds * 1000;
        this.client = await openImap(this.config.imap, this.options.connectTimeoutMs, this.deps.log, {
          checkMs,
          tls: this.config.imapTls,
          ...(this.tokens ? { tokens: this.tokens } : {}),
          ...(this.publicOnly ? { publicOnly: this.publicOnly } : {}),
        });
        attempt = 0;
        await this.session(this.client);
      } catch (error) {
        if (this.stopped) break;
        const message = (error as Error).message;
        this.deps.log.warn(
          { inbox: this.inboxId, host: hostOf(this.config.imap), err: message },
          'imap sync failed',
        );
        await this.setState('error', message);
        await this.sleep(backoffMs(this.options, attempt++));
      } finally {
        const client = this.client;
        this.client = null;
        await closeImap(client);
      }
    }
  }

  private async session(client: ImapFlow): Promise<void> {
    let lastFull = 0;
    let folders: SyncedFolder[] = [];
    while (!this.stopped) {
      const inbox = await syncedInbox(this.deps, this.inboxId);
      if (!inbox) return;
      const full = Date.now() - lastFull >= this.options.pollMs || folders.length === 0;
      if (full) {
        if (inbox.last_sync_at === null) await this.setState('syncing');
        // Under the lock: a send that creates Sent meanwhile must not look gone to a LIST from before.
        folders = await this.lock.run(async () => {
          const remote = await client.list();
          const mapped = await mapFolders(this.deps, inbox, remote);
          // A LIST without INBOX is a server fault, not every folder deleted.
          if (remote.some((entry) => entry.path.toUpperCase() === 'INBOX')) {
            await dropGoneFolders(this.deps, inbox, mapped);
          }
          return mapped;
        });
        lastFull = Date.now();
      }
      const days = this.deps.config.imapInitialDays;
      const ctx = {
        deps: this.deps,
        client,
        inbox,
        lock: this.lock,
        batchSize: this.options.batchSize,
        initialSince: days > 0 ? new Date(Date.now() - days * 86_400_000) : null,
        announce: inbox.last_sync_at !== null,
        fence: this.fence,
      };
      for (const folder of full ? folders : folders.slice(0, 1)) {
        if (this.stopped) return;
        const current = await syncedFolder(this.deps, folder.id);
        if (!current?.remote_path) continue;
        try {
          await syncFolder(ctx, current);
        } catch (error) {
          if (!(error as { mailboxMissing?: boolean }).mailboxMissing) throw error;
          // Deleted by another client since the LIST.
          await this.lock.run(async () => dropFolderCopy(this.deps, inbox, current));
        }
      }
      await this.setState('synced');
      await this.waitForChange(client, folders[0]);
    }
  }

  /** IDLE on INBOX until the server tells of a change, the poll interval passes, or the connection ends. */
  private async waitForChange(client: ImapFlow, inbox: SyncedFolder | undefined): Promise<void> {
    if (!inbox?.remote_path) return this.sleep(this.options.pollMs);
    const selected = await client.mailboxOpen(inbox.remote_path);
    // Mail or flag changes that came after this folder's sync, before this SELECT: no IDLE needed.
    const seen = await syncedFolder(this.deps, inbox.id);
    const uidNext = selected.uidNext ?? 0;
    const modseq = selected.highestModseq;
    if (!seen || uidNext > (seen.uid_next_seen ?? 0)) return;
    if (modseq !== undefined && seen.highest_modseq !== null && modseq > BigInt(seen.highest_modseq)) return;
    let closed = false;
    const signal = this.stopping.signal;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, this.options.pollMs);
      const onClose = () => {
        closed = true;
        finish();
      };
      function finish() {
        clearTimeout(timer);
        client.off('exists', finish);
        client.off('expunge', finish);
        client.off('flags', finish);
        client.off('close', onClose);
        signal.removeEventListener('abort', finish);
        resolve();
      }
      // A stop since the SELECT closed the client already: its 'close' will not come again.
      if (signal.aborted) return finish();
      signal.addEventListener('abort', finish);
      client.on('exists', finish);
      client.on('expunge', finish);
      client.on('flags', finish);
      client.on('close', onClose);
      // The next command ends the IDLE (imapflow sends DONE first).
      client.idle().catch(() => onClose());
    });
    if (closed && !this.stopped) throw new Error('the IMAP server closed the connection');
  }

  /** Waits `ms`, or less when stopped (at once when stopped already: a stop during the error's record). */
  private sleep(ms: number): Promise<void> {
    return delay(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }

  private setState(state: SyncState, error: string | null = null): Promise<void> {
    return recordSyncState(this.deps, this.inboxId, state, error);
  }
}
