import type { Hono } from 'hono';
import type { AppEnv } from '../http/context.js';
import { registerAssets } from './assets.js';
import { auditedPosts } from './audit.js';
import { registerActivity } from './pages/activity.js';
import { registerAdminPages } from './pages/admin.js';
import { registerApprovals } from './pages/approvals.js';
import { registerCompose } from './pages/compose.js';
import { registerInboxes } from './pages/inboxes.js';
import { registerKeys } from './pages/keys.js';
import { registerLabels } from './pages/labels.js';
import { registerLists } from './pages/lists.js';
import { registerInboxSettings } from './pages/inbox-settings.js';
import type { StreamFeed } from './pages/mail-actions.js';
import { registerMailActions } from './pages/mail-actions.js';
import { registerMailList } from './pages/mail-list.js';
import { registerMailRead } from './pages/mail-read.js';
import { registerSignIn } from './pages/sign-in.js';
import { registerWebhooks } from './pages/webhooks.js';

export type { StreamFeed };

/**
 * The dashboard: server-rendered pages on the app's root, beside /api/v1, /admin/v1, /mcp and
 * /docs. Each handler is wrapped (session.ts `signedIn`) rather than behind `use('*')`, so
 * nothing of it runs for the API's paths.
 */
export function registerDashboard(root: Hono<AppEnv>, streamFeed: StreamFeed): void {
  const app = auditedPosts(root);
  registerAssets(app);
  registerSignIn(app);
  registerMailList(app);
  registerMailRead(app);
  registerMailActions(app, streamFeed);
  registerCompose(app);
  registerInboxes(app);
  registerKeys(app);
  registerWebhooks(app);
  registerLabels(app);
  registerLists(app);
  registerApprovals(app);
  registerInboxSettings(app);
  registerActivity(app);
  registerAdminPages(app);
}
