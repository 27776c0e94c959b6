/**
 * The package's public face (`import { createMailroom } from 'mailroom-server'`), written out so
 * its .d.ts names nothing a consumer lacks after `npm install mailroom-server`: no types of the
 * database drivers, the logger or the config's schemas. `createMailroom` in src/mailroom.ts
 * returns more (its store, its app), for the CLI and this project's own tests.
 */
import type { ApiOperations, Email, EmptyFolderResult, SendEmail, SendResult } from '../client/types.js';
import type { WaitForEmailOptions } from '../client/waiting.js';

/**
 * Every setting (README "Settings": each is also a `MAILROOM_*` variable); an option given here
 * wins over the environment. test/docs/public-types.test.ts checks that none is missing.
 */
export interface MailroomSettings {
  host?: string;
  httpPort?: number;
  smtpPort?: number;
  dataDir?: string;
  /** The SQLite file, or ':memory:'; derived from dataDir unless given. */
  dbFile?: string;
  databaseUrl?: string;
  domain?: string;
  bootstrap?: boolean;
  bootstrapKey?: string;
  /** RSA private key (PEM) the bootstrap's domain signs with, instead of a new one. */
  dkimKey?: string;
  dkimSelector?: string;
  hostname?: string;
  /** This node's name among nodes sharing one PostgreSQL; default `<host name>-<pid>`. */
  nodeId?: string;
  /** The address people use for the dashboard (links, secure cookies); default http://host:port. */
  publicUrl?: string;
  maxMessageBytes?: number;
  maxRecipients?: number;
  smtpMaxConnections?: number;
  smtpMaxConnectionsPerIp?: number;
  smtpMessagesPerMinutePerIp?: number;
  /** Addresses and CIDR networks not counted against the per-IP SMTP limits. */
  smtpTrustedNetworks?: string[];
  smtpInflightBytes?: number;
  smtpCommandTimeout?: number;
  smtpDataTimeout?: number;
  smtpMinDataRate?: number;
  smtpDataGrace?: number;
  smtpMaxFailedRecipients?: number;
  postmaster?: string;
  tlsCert?: string;
  tlsKey?: string;
  verifyAuth?: boolean;
  /** DMARC failures refused (p=reject) or filed into Spam (p=quarantine). */
  dmarcEnforce?: boolean;
  /** rspamd's base URL, e.g. http://127.0.0.1:11333: inbound mail is scored before the answer to DATA. */
  rspamdUrl?: string;
  rspamdTimeoutMs?: number;
  rspamdFail?: 'open' | 'tempfail';
  /** clamd as tcp://host:port or a socket path: inbound mail is scanned before the answer to DATA. */
  clamd?: string;
  clamdFail?: 'open' | 'tempfail';
  outbound?: 'sandbox' | 'relay' | 'direct';
  relayUrl?: string;
  webhookAllowPrivate?: boolean;
  connectAllowPrivate?: boolean;
  corsOrigins?: string[];
  rateLimit?: number;
  /** Waits for mail one API key may hold at once (MAILROOM_MAX_WAITS_PER_KEY, default 50). */
  maxWaitsPerKey?: number;
  /** Recipients an inbox may send to an hour, a day, unless its settings say otherwise (0: none). */
  sendLimitPerHour?: number;
  sendLimitPerDay?: number;
  /** Messages an inbox may send to one address in 10 minutes (MAILROOM_LOOP_LIMIT, default 20). */
  loopLimit?: number;
  /** Hours a send waits for approval before it goes back to Drafts (MAILROOM_APPROVAL_TTL_HOURS, default 168). */
  approvalTtlHours?: number;
  authFailureLimit?: number;
  adminToken?: string;
  metricsToken?: string;
  secret?: string;
  trashDays?: number;
  auditRetentionDays?: number;
  imapInitialDays?: number;
  imapCheckSeconds?: number;
  imapSyncAllMail?: boolean;
  /** The team's OAuth2 client per provider, for mailboxes connected with a refresh token. */
  oauthGmailClientId?: string;
  oauthGmailClientSecret?: string;
  oauthMicrosoftClientId?: string;
  oauthMicrosoftClientSecret?: string;
  oauthYahooClientId?: string;
  oauthYahooClientSecret?: string;
  maxBodyBytes?: number;
  maxHeaderBytes?: number;
  ingestThread?: boolean;
  parseThreads?: number;
  parseDeadlineMs?: number;
  /** Read by `mailroom serve` only: an embedding process keeps its own V8 settings. */
  heapGrowthPercent?: number;
  dbSync?: 'full' | 'normal';
  /** Everything in memory: no file is written, and all is gone at stop(). */
  memory?: boolean;
  shutdownGrace?: number;
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export interface MailroomOptions extends MailroomSettings {
  /** Read MAILROOM_* from this environment (default process.env; pass {} to ignore it). */
  env?: Record<string, string | undefined>;
}

/** What the first start on an empty database made (and `reset({ all: true })` makes again). */
export interface BootstrapResult {
  domain: string;
  user: string;
  inbox: string;
  apiKey: string;
  /** The key was given (MAILROOM_BOOTSTRAP_KEY, or kept across a reset), so it is not printed. */
  keyGiven: boolean;
  /** A one-time dashboard sign-in link for the first user, valid 15 minutes (shown once, never logged). */
  signInLink: string;
}

export interface ResetOptions {
  /**
   * Also every user, API key, inbox and domain, then the first-start bootstrap again with the
   * same API key when this process knows it (the one it bootstrapped with, or
   * MAILROOM_BOOTSTRAP_KEY): back to the state right after the first start.
   */
  all?: boolean;
}

export interface Mailroom {
  /** The HTTP listener once started: its port (a free one when 0 was asked) and its base URL. */
  readonly http: { readonly port: number; readonly url: string };
  readonly smtp: { readonly port: number };
  /** Filled when this start bootstrapped an empty database (or `reset({ all: true })` did). */
  readonly bootstrap: BootstrapResult | null;
  /** Opens the data directory (secret, migrations) without listening; start() does it first. */
  open(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * The first email matching the filters, read whole (text and html): at once when one is already
   * in the folder, else as soon as one is committed, else EmailWaitTimeout after `timeoutMs`
   * (4 s by default) saying what was waited for and what is in the folder.
   */
  waitForEmail(options: WaitForEmailOptions): Promise<Email>;
  /**
   * Between tests: every hosted inbox emptied (mail, threads, custom folders, events, uids from
   * 1) and every user's labels, webhooks and idempotency keys gone; users, API keys, domains and
   * inboxes stay. `{ all: true }`: see ResetOptions.
   */
  reset(options?: ResetOptions): Promise<void>;
  /** One inbox without HTTP: send, list, read, waitForEmail, empty. */
  inbox(address: string): InboxHelper;
  /** Answers an HTTP request in-process, as the listener would (`createMailroomClient({ fetch })`). */
  fetch(request: Request): Promise<Response>;
}

/** `GET /emails`'s filters, without the inbox (the helper's) and the long-poll (waitForEmail's). */
export type InboxListFilters = Omit<ApiOperations['listEmails']['parameters']['query'], 'account' | 'wait'>;

/** One inbox, without HTTP: the same mailbox verbs the API's routes call, as the inbox's owner. */
export interface InboxHelper {
  readonly address: string;
  /** Sends from this inbox, as `POST /emails/send`; mail to a local inbox is there when this resolves. */
  send(message: Omit<SendEmail, 'from'>): Promise<SendResult>;
  /** A page of this inbox's mail, newest first, as `GET /emails` (INBOX unless `folder`). */
  list(filters?: InboxListFilters): Promise<{ emails: Email[]; nextCursor: string | null }>;
  /** One email, whole, as `GET /emails/{uid}` (INBOX unless `folder`). */
  read(uid: number, folder?: string): Promise<Email>;
  /** As `mailroom.waitForEmail`, on this inbox. */
  waitForEmail(options?: Omit<WaitForEmailOptions, 'account'>): Promise<Email>;
  /** Empties a folder (INBOX unless named), as `DELETE /emails?folder=`. */
  empty(folder?: string, options?: { permanent?: boolean }): Promise<EmptyFolderResult>;
}
