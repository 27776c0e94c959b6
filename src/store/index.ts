import type { Db } from '../db/connection.js';
import { AddressListStore } from './address-lists.js';
import { ApiKeyStore } from './api-keys.js';
import { CorrespondentStore } from './correspondents.js';
import { AuditStore } from './audit.js';
import { DashboardSessionStore } from './dashboard-sessions.js';
import { DeliveryStore } from './deliveries.js';
import { DomainStore } from './domains.js';
import { EventStore } from './events.js';
import { FolderStore } from './folders.js';
import { GroupCommit } from './group-commit.js';
import { IdempotencyStore } from './idempotency.js';
import { HeldSendStore } from './held-sends.js';
import { ImapStateStore } from './imap-state.js';
import { InboxStore } from './inboxes.js';
import { LabelStore } from './labels.js';
import { MessageStore } from './messages.js';
import { MetricsStore } from './metrics.js';
import { ScreeningCountStore } from './screening-counts.js';
import { NodeStore } from './nodes.js';
import { OAuthAttemptStore } from './oauth-attempts.js';
import { RateWindowStore } from './rate-windows.js';
import { ResetStore } from './reset.js';
import { SuppressionStore } from './suppressions.js';
import { Sealer } from './sealing.js';
import { SendLogStore } from './send-log.js';
import { ThreadStore } from './threads.js';
import { UserStore } from './users.js';
import { WebhookDeliveryStore } from './webhook-deliveries.js';
import { WebhookStore } from './webhooks.js';
import { HealthStore } from './health.js';

/**
 * Every table family, over one database. The only place with SQL. `secret` (MAILROOM_SECRET)
 * seals the DKIM keys and webhook secrets on the way in and opens them on the way out.
 */
export function createStore(db: Db, secret: string) {
  const sealer = new Sealer(secret);
  return {
    db,
    groupCommit: new GroupCommit(db),
    users: new UserStore(db),
    apiKeys: new ApiKeyStore(db),
    dashboardSessions: new DashboardSessionStore(db),
    oauthAttempts: new OAuthAttemptStore(db),
    domains: new DomainStore(db, sealer),
    inboxes: new InboxStore(db),
    folders: new FolderStore(db),
    messages: new MessageStore(db),
    metrics: new MetricsStore(db),
    screeningCounts: new ScreeningCountStore(db),
    threads: new ThreadStore(db),
    labels: new LabelStore(db),
    events: new EventStore(db),
    deliveries: new DeliveryStore(db),
    sendLog: new SendLogStore(db),
    correspondents: new CorrespondentStore(db),
    heldSends: new HeldSendStore(db),
    idempotency: new IdempotencyStore(db),
    rateWindows: new RateWindowStore(db),
    webhooks: new WebhookStore(db, sealer),
    addressLists: new AddressListStore(db),
    suppressions: new SuppressionStore(db),
    webhookDeliveries: new WebhookDeliveryStore(db, sealer),
    imapState: new ImapStateStore(db),
    health: new HealthStore(db),
    nodes: new NodeStore(db),
    reset: new ResetStore(db),
    audit: new AuditStore(db),
  };
}

export type Store = ReturnType<typeof createStore>;
