import type { ImapFlow } from 'imapflow';
import type { Logger } from 'pino';
import type { RemoteConfig, RemoteMailbox, SubmitResult } from '../mailbox/remote.js';
import { MailroomError, Upstream } from '../mailbox/errors.js';
import type { SyncedFolder } from '../mailbox/sync/folder-progress.js';
import type { Resolver } from '../net/reach.js';
import type { TokenSource } from './connection.js';
import { closeImap, openImap, remoteError } from './connection.js';
import type { MailboxLock } from './mailbox-lock.js';
import type { ImapSyncOptions } from './options.js';
import { uidSet } from './size-batches.js';
import { submitSmtp } from './smtp-submit.js';

/**
 * The IMAP backend of one connected inbox's writes. Each write runs on a connection of its own
 * (never the sync's, which may be idling or reconnecting), opened for one `exclusive` section
 * and closed after it. A refusal becomes Upstream (502), an unreachable server Unprocessable (422).
 */
export class ImapRemoteMailbox implements RemoteMailbox {
  private client: ImapFlow | null = null;

  constructor(
    private readonly config: RemoteConfig,
    private readonly lock: MailboxLock,
    private readonly options: ImapSyncOptions,
    private readonly log: Logger,
    private readonly tokens?: TokenSource,
    /** Set when the servers must stay public (connect/private-servers.ts). */
    private readonly publicOnly?: Resolver,
  ) {}

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      try {
        return await fn();
      } finally {
        const client = this.client;
        this.client = null;
        await closeImap(client);
      }
    });
  }

  async setFlags(folder: SyncedFolder, remoteUid: number, add: string[], remove: string[]): Promise<void> {
    await this.inFolder(folder, async (client) => {
      const range = String(remoteUid);
      if (add.length > 0) check(await client.messageFlagsAdd(range, add, { uid: true }), 'STORE');
      if (remove.length > 0) check(await client.messageFlagsRemove(range, remove, { uid: true }), 'STORE');
    });
  }

  async move(from: SyncedFolder, remoteUid: number, to: SyncedFolder): Promise<number | null> {
    return this.inFolder(from, async (client) => {
      const result = await client.messageMove(String(remoteUid), to.remote_path!, { uid: true });
      if (!result) throw new Upstream(`the IMAP server refused to move the message to ${to.remote_path}`);
      if (result.uidMap && !result.uidMap.has(remoteUid)) {
        throw new Upstream(`the message is no longer in ${from.remote_path} on the IMAP server`);
      }
      return result.uidMap?.get(remoteUid) ?? null;
    });
  }

  async expunge(folder: SyncedFolder, remoteUid: number): Promise<void> {
    await this.inFolder(folder, async (client) => {
      check(await client.messageDelete(String(remoteUid), { uid: true }), 'EXPUNGE');
    });
  }

  async moveMany(
    from: SyncedFolder,
    remoteUids: number[],
    to: SyncedFolder,
  ): Promise<Map<number, number> | null> {
    return this.inFolder(from, async (client) => {
      const result = await client.messageMove(uidSet(remoteUids), to.remote_path!, { uid: true });
      if (!result) throw new Upstream(`the IMAP server refused to move the messages to ${to.remote_path}`);
      return result.uidMap ?? null;
    });
  }

  async expungeMany(folder: SyncedFolder, remoteUids: number[]): Promise<void> {
    await this.inFolder(folder, async (client) => {
      check(await client.messageDelete(uidSet(remoteUids), { uid: true }), 'EXPUNGE');
    });
  }

  async append(folder: SyncedFolder, raw: Buffer, flags: string[]): Promise<number | null> {
    return this.withClient(async (client) => {
      const result = await client.append(folder.remote_path!, raw, flags);
      if (!result)
        throw new Upstream(`the IMAP server refused to store the message in ${folder.remote_path}`);
      return result.uid ?? null;
    });
  }

  async createFolder(name: string): Promise<string> {
    return this.withClient(async (client) => {
      const result = await client.mailboxCreate(name);
      if (!result) throw new Upstream(`the IMAP server refused to create ${name}`);
      return result.path;
    });
  }

  submit(envelope: { from: string; to: string[] }, raw: Buffer): Promise<SubmitResult> {
    return submitSmtp(this.config.smtp, envelope, raw, this.options.connectTimeoutMs, {
      tls: this.config.smtpTls,
      tokens: this.tokens,
      publicOnly: this.publicOnly,
    });
  }

  private inFolder<T>(folder: SyncedFolder, fn: (client: ImapFlow) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.mailboxOpen(folder.remote_path!);
      return fn(client);
    });
  }

  private async withClient<T>(fn: (client: ImapFlow) => Promise<T>): Promise<T> {
    try {
      if (!this.client?.usable) {
        await closeImap(this.client);
        this.client = null;
        this.client = await openImap(this.config.imap, this.options.connectTimeoutMs, this.log, {
          tls: this.config.imapTls,
          ...(this.tokens ? { tokens: this.tokens } : {}),
          ...(this.publicOnly ? { publicOnly: this.publicOnly } : {}),
        });
      }
      return await fn(this.client);
    } catch (error) {
      if (error instanceof MailroomError) throw error;
      throw remoteError(error, 'IMAP', this.config.imap);
    }
  }
}

function check(ok: boolean, command: string): void {
  if (!ok) throw new Upstream(`the IMAP server refused ${command}`);
}
