import type { Generated } from 'kysely';

/** Kysely table types; they mirror migrations/*.sql. */

export interface UsersTable {
  id: Generated<number>;
  name: string;
  created_at: string;
  /** scrypt$N$r$p$salt$hash (migration 009); null: the user cannot sign in with a password. */
  password_hash: string | null;
  admin: Generated<number>;
}

export interface ApiKeysTable {
  id: string;
  user_id: number;
  name: string;
  prefix: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** JSON array of lower-case addresses, or null for every inbox of the user. */
  inboxes: string | null;
  /** JSON array of permission names. */
  permissions: Generated<string>;
}

export interface DomainsTable {
  name: string;
  dkim_selector: string;
  dkim_private_key: string;
  dkim_public_key: string;
  created_at: string;
}

export interface InboxesTable {
  id: Generated<number>;
  address: string;
  user_id: number;
  kind: 'local' | 'imap';
  display_name: string;
  uid_next: Generated<number>;
  remote_config: string | null;
  sync_state: string | null;
  sync_error: string | null;
  last_sync_at: string | null;
  created_at: string;
  /** Inbox settings (contract 14, migration 021): how it may send, and whether sending is paused. */
  send_mode: Generated<InboxSendMode>;
  paused: Generated<number>;
  /** Recipients it may send to an hour, a day; NULL: the server's default; 0: no limit. */
  send_limit_per_hour: number | null;
  send_limit_per_day: number | null;
}

/** Contract 15's modes. */
export type InboxSendMode = 'autonomous' | 'approve_new' | 'approve_all' | 'read_only';

/** One recipient of one message an inbox sent (migration 021), kept a day: the send counters. */
export interface SendLogTable {
  id: Generated<number>;
  inbox_id: number;
  address: string;
  sent_at: string;
  /** Recipients the inbox had counted up to and including this row (migration 028). */
  inbox_total: number;
  /** The same, of this row's address alone. */
  address_total: number;
}

/** When the loop guard last raised inbox.loop_detected for an inbox and an address (migration 021). */
export interface LoopAlertsTable {
  inbox_id: number;
  address: string;
  raised_at: string;
}

/** One record of the audit trail (migration 025); the record served is every column but seq, user_id and prev_hash. */
export interface AuditLogTable {
  seq: Generated<number>;
  id: string;
  at: string;
  user_id: number | null;
  actor_kind: string;
  actor_id: string | null;
  door: string;
  action: string;
  account: string | null;
  target: string | null;
  outcome: string;
  request_id: string | null;
  prev_hash: string;
  hash: string;
}

export interface FoldersTable {
  id: Generated<number>;
  inbox_id: number;
  name: string;
  special_use: string | null;
  remote_path: string | null;
  uid_validity: number | null;
  created_at: string;
  /** Migration 005 (IMAP sync): remote HIGHESTMODSEQ and UIDNEXT at the last sync. */
  highest_modseq: number | null;
  uid_next_seen: number | null;
}

export interface ThreadsTable {
  id: string;
  inbox_id: number;
  subject: string;
  subject_key: string;
  last_uid: number;
  last_date: string;
  created_at: string;
}

export interface MessagesTable {
  id: Generated<number>;
  inbox_id: number;
  uid: number;
  folder_id: number;
  thread_id: string;
  message_id: string;
  in_reply_to: string | null;
  refs: string;
  from_address: string;
  from_name: string;
  to_addrs: string;
  cc_addrs: string;
  bcc_addrs: string;
  reply_to: string;
  subject: string;
  date: string;
  received_at: string;
  size: number;
  has_attachments: number;
  flags: string;
  seen: number;
  auth_results: string | null;
  delivery: string | null;
  remote_uid: number | null;
  /** When it was moved to Trash (migration 003); NULL elsewhere. */
  trashed_at: string | null;
  /** JSON: the whole count of each address list cut to its first entries (migration 008); NULL when none was. */
  address_totals: string | null;
  /**
   * The Email's preview, worked out when the message was filed (migration 013); NULL where
   * list_text gives it (previewOf the list text: migration 017).
   */
  preview: string | null;
  /**
   * extractedText as a list shows it (cut to 500 characters), as preview is (migration 013); NULL
   * when it is the text's own start.
   */
  list_extracted_text: string | null;
  /** Its source, text and html, shared by the copies one delivery filed (migration 017). */
  source_id: number;
  /** The text's first 501 characters: what a list shows, and whether it was cut (migration 017). */
  list_text: string;
  /** JSON: rspamd's verdict ({score, required, action, symbols}) when it was checked (migration 023). */
  spam: string | null;
  /** JSON: what screening found when the message was received (migration 022); NULL when not screened. */
  screening: string | null;
  /** Received mail a machine sent (migration 021): the Email's autoReply. */
  auto_reply: Generated<number>;
  /** Why a send that did not go was moved back to Drafts (migration 024): the Email's rejectedReason. */
  rejected_reason: string | null;
}

/**
 * A message's source and its text and html, compressed (src/store/message-sources.ts), for every
 * message that points at it (migration 017): `raw` is the source's first piece when `parts` more
 * follow in message_source_parts.
 */
export interface MessageSourcesTable {
  id: Generated<number>;
  body: Buffer;
  raw: Buffer;
  parts: Generated<number>;
  /** 1: its pieces hold the source with its base64 decoded (migration 030, src/store/base64-runs.ts). */
  base64_decoded: Generated<number>;
}

/** The pieces of a source after the first, numbered from 1 (see MessageSourcesTable). */
export interface MessageSourcePartsTable {
  source_id: number;
  part: number;
  bytes: Buffer;
}

export interface AttachmentsTable {
  message_id: number;
  attachment_id: string;
  filename: string;
  content_type: string;
  size: number;
  content_id: string | null;
  inline: number;
}

export interface LabelsTable {
  id: string;
  user_id: number;
  name: string;
  color: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface MessageLabelsTable {
  message_id: number;
  label_id: string;
}

export type DeliveryStatus = 'queued' | 'deferred' | 'delivered' | 'failed' | 'captured';

export interface DeliveriesTable {
  id: Generated<number>;
  message_id: number;
  recipient: string;
  status: DeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** Migration 002: when the last attempt ran, and the host that answered it. */
  last_attempt_at: string | null;
  remote_mta: string | null;
  /** Migration 018: the claim the row was last taken under (null until first taken). */
  claim_id: string | null;
}

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  type: string;
  user_id: number;
  inbox_id: number | null;
  /** The body as stored: for an event with body_of, the email's text and html are left empty. */
  payload: string;
  created_at: string;
  /** Migration 007: the message whose text and html fill the email of this event when sent. */
  body_of: number | null;
}

export interface WebhooksTable {
  id: string;
  user_id: number;
  url: string;
  events: string;
  accounts: string | null;
  description: string | null;
  status: 'enabled' | 'disabled';
  secret: string;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
  /** 'gone' (410), 'failing' (5 days of failures) or 'user' (migration 004); NULL while enabled. */
  disabled_reason: string | null;
  /** 1: also email.received for mail filed into Spam (migration 023). */
  include_spam: Generated<number>;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: string;
  event_seq: number;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** Migration 018: the claim the row was last taken under (null until first taken). */
  claim_id: string | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
  /** Migration 004; NULL on attempts recorded before it. */
  webhook_id: string | null;
  /** Migration 015, NULL on attempts recorded before it: the URL and headers (JSON) as sent. */
  request_url: string | null;
  request_headers: string | null;
  /** The answer's body: its first 2 KB as text, and how many bytes it had (read up to 64 KB). */
  response_body: string | null;
  response_bytes: number | null;
}

export interface IdempotencyKeysTable {
  user_id: number;
  key: string;
  request_hash: string;
  status_code: number;
  response: string;
  created_at: string;
  /** Set while a request holds the key (status_code 0): its claim and until when (migration 026). */
  claim_id: string | null;
  held_until: string | null;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface DashboardSessionsTable {
  token_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

export interface SignInLinksTable {
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
}

/** Sign-in attempts per client address or user name in a fixed window (migration 015). */
export interface SignInAttemptsTable {
  /** `client:<address>` or `name:<sha256 of the name>`. */
  subject: string;
  window_start: string;
  attempts: number;
}

/** A running node and its heartbeat (migration 018). */
export interface NodesTable {
  id: string;
  version: string;
  started_at: string;
  last_seen_at: string;
}

/** Work one node does at a time: `imap:<inbox id>` or `job:<name>` (migration 018). */
/** A fixed window of a limit shared by the nodes (migration 026). */
export interface RateWindowsTable {
  subject: string;
  window_start: string;
  hits: number;
}

export interface LeasesTable {
  name: string;
  node_id: string;
  claim_id: string;
  expires_at: string;
}

/** A dashboard "Connect" with an OAuth2 provider under way (migration 012). */
export interface OAuthAttemptsTable {
  state_hash: string;
  user_id: number;
  provider: string;
  code_verifier: string;
  redirect_uri: string;
  login_hint: Generated<string>;
  created_at: string;
  expires_at: string;
}

export type ListDirection = 'send' | 'receive';
export type ListType = 'allow' | 'block';

/** An allow or block list entry (migration 020): an address or a domain, lower-case. */
export interface AddressListsTable {
  id: Generated<number>;
  user_id: number;
  /** Null for an entry that holds for all of the user's inboxes. */
  inbox_id: number | null;
  direction: ListDirection;
  type: ListType;
  entry: string;
  reason: string | null;
  created_at: string;
}

/** An address a user's mail is no longer sent to (migration 020). */
export interface SuppressionsTable {
  user_id: number;
  address: string;
  reason: string;
  created_at: string;
}

/** An address an inbox received mail from (outside Spam) or sent mail to (migration 024). */
export interface CorrespondentsTable {
  inbox_id: number;
  address: string;
}

/** A send kept in Outbox, waiting for a decision or for its time (migration 024). */
export interface HeldSendsTable {
  id: string;
  inbox_id: number;
  message_id: number | null;
  uid: number;
  state: HeldState;
  requested_by: string | null;
  /** 1 when it waited (or waits) for a decision. */
  approval: Generated<number>;
  send_at: string | null;
  expires_at: string | null;
  due_at: string | null;
  claim_id: string | null;
  reason: string | null;
  decided_by: string | null;
  extra: Generated<string>;
  created_at: string;
  updated_at: string;
}

export type HeldState = 'pending' | 'scheduled' | 'sent' | 'rejected';

/** GET /metrics's mailroom_screening_total, one row per outcome (migration 023). */
export interface ScreeningCountsTable {
  outcome: string;
  count: number;
}

export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  domains: DomainsTable;
  inboxes: InboxesTable;
  folders: FoldersTable;
  threads: ThreadsTable;
  messages: MessagesTable;
  message_sources: MessageSourcesTable;
  message_source_parts: MessageSourcePartsTable;
  attachments: AttachmentsTable;
  labels: LabelsTable;
  message_labels: MessageLabelsTable;
  deliveries: DeliveriesTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  screening_counts: ScreeningCountsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  settings: SettingsTable;
  dashboard_sessions: DashboardSessionsTable;
  sign_in_links: SignInLinksTable;
  sign_in_attempts: SignInAttemptsTable;
  oauth_attempts: OAuthAttemptsTable;
  address_lists: AddressListsTable;
  suppressions: SuppressionsTable;
  send_log: SendLogTable;
  loop_alerts: LoopAlertsTable;
  correspondents: CorrespondentsTable;
  held_sends: HeldSendsTable;
  audit_log: AuditLogTable;
  nodes: NodesTable;
  leases: LeasesTable;
  rate_windows: RateWindowsTable;
}
