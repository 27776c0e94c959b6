import type { RemoteBackends, RemoteConfig, RemoteMailbox } from '../mailbox/remote.js';
import type { MailboxDeps } from '../mailbox/deps.js';
import { AccessTokens } from '../mailbox/connect/access-tokens.js';
import { connectLookups, oauthOf } from '../mailbox/connect/lookups.js';
import { publicOnlyResolver } from '../mailbox/connect/private-servers.js';
import type { ConnectedInbox } from '../mailbox/sync/connected-inboxes.js';
import {
  connectedInboxes,
  recordSyncState,
  refreshGrantAlone,
  remoteConfigOf,
  saveRemoteConfig,
} from '../mailbox/sync/connected-inboxes.js';
import { releaseSyncLease, renewSyncLease, takeSyncLease } from '../mailbox/sync/sync-lease.js';
import type { SyncLease } from '../mailbox/sync/new-mail.js';
import { closeImap, openImap } from './connection.js';
import { InboxSync } from './inbox-sync.js';
import { MailboxLock } from './mailbox-lock.js';
import type { ImapSyncOptions } from './options.js';
import { resolveImapOptions } from './options.js';
import { ImapRemoteMailbox } from './remote-writes.js';
import { verifySmtp } from './smtp-submit.js';

/**
 * Runs one InboxSync per connected inbox (a server Worker) and gives the mailbox layer the IMAP
 * backend of each. The list of connected inboxes is re-read every `watchMs`, so an inbox
 * connected or removed by the CLI, in another process, is picked up too.
 *
 * Of several nodes on one database, one syncs each inbox (contract 11): the one holding its
 * lease (`imap:<inbox id>`), renewed at every re-read; a node that stops renewing loses it after
 * `leaseMs`, and the next node to re-read the list takes it. A sync whose lease was lost is
 * stopped, and what it would still file is refused (the fence in fileNewMail).
 */
export class ImapSyncManager implements RemoteBackends {
  readonly name = 'imap-sync';
  private readonly syncs = new Map<number, InboxSync>();
  /** The lease each running sync holds. */
  private readonly leases = new Map<number, SyncLease>();
  private readonly locks = new Map<number, MailboxLock>();
  /** Each OAuth2 inbox's tokens, shared by its sync and its writes (one refresh for both). */
  private readonly tokens = new Map<number, AccessTokens>();
  private readonly options: ImapSyncOptions;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** Refreshes run one after another: two at once could each start a sync of the same inbox. */
  private refreshing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: MailboxDeps,
    options?: Partial<ImapSyncOptions>,
  ) {
    this.options = resolveImapOptions(options);
  }

  start(): void {
    this.running = true;
    this.refresh();
    this.timer = setInterval(() => this.refresh(), this.options.watchMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    await this.refreshing;
    const all = [...this.syncs.keys()];
    await Promise.all(all.map((id) => this.stopSync(id)));
  }

  /** Stops the sync of an inbox here and gives its lease back, for another node to take at once. */
  private async stopSync(id: number): Promise<void> {
    const sync = this.syncs.get(id);
    const lease = this.leases.get(id);
    this.syncs.delete(id);
    this.leases.delete(id);
    this.tokens.delete(id);
    await sync?.stop();
    if (lease) await releaseSyncLease(this.deps, lease);
  }

  of(inbox: ConnectedInbox): RemoteMailbox {
    const config = this.configOf(inbox);
    return new ImapRemoteMailbox(
      config,
      this.lockOf(inbox.id),
      this.options,
      this.deps.log,
      this.tokensOf(inbox.id, config),
      publicOnlyResolver(config, this.deps),
    );
  }

  async verify(config: RemoteConfig): Promise<void> {
    // A refresh token rotated here is written into `config`, which the caller then stores.
    const tokens = config.oauth2 ? this.newTokens(config, async () => {}) : undefined;
    const publicOnly = publicOnlyResolver(config, this.deps);
    const client = await openImap(config.imap, this.options.connectTimeoutMs, this.deps.log, {
      tls: config.imapTls,
      ...(tokens ? { tokens } : {}),
      ...(publicOnly ? { publicOnly } : {}),
    });
    await closeImap(client);
    await verifySmtp(config.smtp, this.options.connectTimeoutMs, { tls: config.smtpTls, tokens, publicOnly });
  }

  private tokensOf(inboxId: number, config: RemoteConfig): AccessTokens | undefined {
    if (!config.oauth2) return undefined;
    let tokens = this.tokens.get(inboxId);
    if (!tokens) {
      tokens = this.newTokens(
        config,
        () => saveRemoteConfig(this.deps, inboxId, config),
        (refresh) => refreshGrantAlone(this.deps, inboxId, refresh),
      );
      this.tokens.set(inboxId, tokens);
    }
    return tokens;
  }

  /** Tokens for `config`'s grant; a rotated refresh token is written into `config`, then `save`d. */
  private newTokens(
    config: RemoteConfig,
    save: () => Promise<void>,
    alone?: ConstructorParameters<typeof AccessTokens>[5],
  ): AccessTokens {
    const grant = config.oauth2!;
    const lookups = connectLookups(this.deps.lookups);
    const { endpoints, client } = oauthOf(this.deps.config, lookups, grant.provider);
    return new AccessTokens(
      endpoints,
      client,
      grant.refreshToken,
      async (rotated) => {
        grant.refreshToken = rotated;
        await save();
      },
      lookups.fetch,
      alone,
    );
  }

  inboxesChanged(): void {
    this.refresh();
  }

  private refresh(): void {
    this.refreshing = this.refreshing
      .then(() => this.refreshNow())
      .catch((error: unknown) => {
        this.deps.log.error({ err: error }, 'imap sync could not read the connected inboxes');
      });
  }

  private async refreshNow(): Promise<void> {
    if (!this.running) return;
    const inboxes = await connectedInboxes(this.deps);
    if (!inboxes) return;
    const connected = new Map(inboxes.map((i) => [i.id, i]));
    // Stopped while the list was read: stop() stops what is in `syncs`, so start nothing more.
    if (!this.running) return;
    for (const id of [...this.syncs.keys()]) {
      const lease = this.leases.get(id)!;
      const kept = connected.has(id) && (await renewSyncLease(this.deps, lease, this.options.leaseMs));
      if (kept) continue;
      if (connected.has(id)) this.deps.log.warn({ inbox: id }, 'imap sync lease lost to another node');
      void this.stopSync(id);
    }
    for (const [id, inbox] of connected) {
      if (this.syncs.has(id)) continue;
      const fence = await takeSyncLease(this.deps, id, this.options.leaseMs);
      // Another node syncs it.
      if (fence === null) continue;
      if (!this.running) return releaseSyncLease(this.deps, fence);
      let config: RemoteConfig;
      let tokens: AccessTokens | undefined;
      try {
        config = this.configOf(inbox);
        tokens = this.tokensOf(id, config);
      } catch (error) {
        // Given back: the error is this inbox's state until it is fixed, whichever node looks.
        await recordSyncState(this.deps, id, 'error', (error as Error).message);
        await releaseSyncLease(this.deps, fence);
        continue;
      }
      const sync = new InboxSync(this.deps, id, config, this.lockOf(id), this.options, fence, tokens);
      this.syncs.set(id, sync);
      this.leases.set(id, fence);
      sync.start();
    }
  }

  private lockOf(inboxId: number): MailboxLock {
    let lock = this.locks.get(inboxId);
    if (!lock) this.locks.set(inboxId, (lock = new MailboxLock(this.deps, inboxId)));
    return lock;
  }

  private configOf(inbox: ConnectedInbox): RemoteConfig {
    return remoteConfigOf(this.deps, inbox);
  }
}
