import type { FolderRow } from '../store/folders.js';
import type { InboxRow } from '../store/inboxes.js';
import type { ProviderName } from './connect/providers.js';

/**
 * Two backends, one interface (ARCHITECTURE rule 5). A hosted inbox's backend is the local
 * store alone: the verbs change it in one transaction. A connected inbox also has a remote
 * mailbox, changed first; only when the remote accepted does the same local change follow.
 * Every remote method throws `Upstream` (502) when the server refuses and `Unprocessable` (422)
 * when it cannot be reached, before anything local has changed.
 */
export interface RemoteMailbox {
  /** Runs fn while this inbox's sync is held off, so it never sees a half-applied write. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  setFlags(folder: FolderRow, remoteUid: number, add: string[], remove: string[]): Promise<void>;
  /** Moves a message; answers its UID in the destination when the server tells it (UIDPLUS). */
  move(from: FolderRow, remoteUid: number, to: FolderRow): Promise<number | null>;
  /** Deletes a message for good (\Deleted, then UID EXPUNGE). */
  expunge(folder: FolderRow, remoteUid: number): Promise<void>;
  /**
   * Moves several messages in one command (emptying a folder); answers the UID each got in the
   * destination, by its UID in `from`, when the server tells them (UIDPLUS).
   */
  moveMany(from: FolderRow, remoteUids: number[], to: FolderRow): Promise<Map<number, number> | null>;
  /** Deletes several messages for good in one command. */
  expungeMany(folder: FolderRow, remoteUids: number[]): Promise<void>;
  /** Creates a folder (an existing one is fine); answers its path on the server. */
  createFolder(name: string): Promise<string>;
  /** Appends a message; answers its UID when the server tells it. */
  append(folder: FolderRow, raw: Buffer, flags: string[]): Promise<number | null>;
  /** Sends through the mailbox's own SMTP server. */
  submit(envelope: { from: string; to: string[] }, raw: Buffer): Promise<SubmitResult>;
}

export interface SubmitResult {
  accepted: string[];
  rejected: string[];
}

/** The connection settings of an external mailbox (stored sealed, never returned). */
export interface RemoteConfig {
  imap: string;
  smtp: string;
  /** How the IMAP server's certificate is checked, when not against the system's CAs. */
  imapTls?: TlsTrust;
  smtpTls?: TlsTrust;
  /** Log in with OAuth2 access tokens (XOAUTH2/OAUTHBEARER) instead of passwords in the URLs. */
  oauth2?: OAuthGrant;
  /**
   * Connected by a user (the dashboard), not an operator: its servers are reached on public
   * addresses only, unless MAILROOM_CONNECT_ALLOW_PRIVATE (connect/private-servers.ts).
   */
  publicOnly?: true;
}

/** A refresh token from `provider`, whose token endpoint and the team's client (settings) refresh it. */
export interface OAuthGrant {
  provider: ProviderName;
  refreshToken: string;
}

/**
 * Trust for a server whose certificate the system does not vouch for (self-signed, a private CA):
 * `ca` trusts that PEM (the host name is still checked); `insecure` checks nothing, and inbox
 * views say so.
 */
export interface TlsTrust {
  ca?: string;
  insecure?: boolean;
}

/** What src/imap provides to the mailbox layer (wired in createMailroom). */
export interface RemoteBackends {
  of(inbox: InboxRow): RemoteMailbox;
  /** Logs in over IMAP and greets the SMTP server; throws Upstream or Unprocessable when either fails. */
  verify(config: RemoteConfig): Promise<void>;
  /** Connected inboxes were added or removed: start or stop their sync now. */
  inboxesChanged(): void;
}
