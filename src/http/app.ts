import { OpenAPIHono } from '@hono/zod-openapi';
import { registerDashboard } from '../dashboard/app.js';
import type { MailboxDeps } from '../mailbox/deps.js';
import type { AppEnv } from './context.js';
import { handleError, sendValidationError } from './errors.js';
import { notFoundOrNotAllowed } from './method-not-allowed.js';
import { apiKeyAuth } from './middleware/auth.js';
import { lookAheadForList } from './middleware/look-ahead.js';
import { apiCors } from './middleware/cors.js';
import { AuthThrottle } from './middleware/auth-throttle.js';
import { jsonBody } from './middleware/json-body.js';
import { HttpMetrics, recordHttpMetrics } from './middleware/metrics.js';
import { rateLimit } from './middleware/rate-limit.js';
import { apiRate } from '../mailbox/limits/api-rate.js';
import { requestIds, requestLog } from './middleware/request-log.js';
import { securityHeaders } from './middleware/security-headers.js';
import { validateWholeRequests } from './middleware/validate-request.js';
import { enforceRoutePermissions } from './route-permission.js';
import { enforceRouteAudit, keyActor } from './route-audit.js';
import { serveOpenApiDocument } from './openapi-document.js';
import { registerAccountRoutes } from './routes/accounts.js';
import { registerApprovalRoutes } from './routes/approvals.js';
import { registerInboxSettingsRoutes } from './routes/inbox-settings.js';
import { createAdminApp } from './routes/admin.js';
import { registerDocs } from './routes/docs.js';
import { registerDraftRoutes } from './routes/drafts.js';
import { registerEmailOrganiseRoutes } from './routes/emails-organise.js';
import { registerEmailReadRoutes } from './routes/emails-read.js';
import { registerFolderRoutes } from './routes/folders.js';
import { registerLabelRoutes } from './routes/labels.js';
import { registerListRoutes } from './routes/lists.js';
import { registerAuditRoute } from './routes/audit.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { registerMeRoute } from './routes/me.js';
import { registerMetricsRoute } from './routes/metrics.js';
import { registerSendRoutes } from './routes/send.js';
import { registerThreadRoutes } from './routes/threads.js';
import type { EventStreamRoutes } from './routes/events-stream.js';
import { registerWebhookRoutes } from './routes/webhooks.js';

export interface HttpOptions {
  deps: MailboxDeps;
  /** For /readyz: 'ready' once the listeners are up and the database takes writes. */
  ready: () => Promise<'ready' | 'starting' | 'unavailable'>;
  /** `GET /events` and its token, whose open streams the server ends on stop; the dashboard's feed. */
  eventStreams: EventStreamRoutes;
  /** Window of the failed-authentication throttle (default one minute); tests shorten it. */
  authFailureWindowMs?: number;
}

const validationHook = {
  defaultHook: (
    result: { success: boolean; error?: unknown; target?: string },
    c: Parameters<typeof sendValidationError>[0],
  ) => {
    if (!result.success) {
      const prefix = result.target === 'json' ? '' : result.target === 'param' ? 'path' : '';
      return sendValidationError(c, result.error as Parameters<typeof sendValidationError>[1], prefix);
    }
    return undefined;
  },
};

export function createHttpApp(options: HttpOptions): OpenAPIHono<AppEnv> {
  const { deps } = options;
  const root = new OpenAPIHono<AppEnv>(validationHook as never);
  root.onError(handleError);
  root.notFound(notFoundOrNotAllowed(root));
  const httpMetrics = new HttpMetrics();
  root.use('*', requestIds());
  root.use('*', requestLog(deps.log));
  root.use('*', recordHttpMetrics(httpMetrics)); // first, so its latency covers all the rest
  root.use('*', securityHeaders());
  root.use('*', async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  // Checked after authentication, so an unauthenticated caller gets 401 and no body is buffered.
  const bodyCheck = jsonBody(deps.config.maxBodyBytes);

  root.get('/healthz', (c) => c.json({ status: 'ok' }));
  root.get('/readyz', async (c) => {
    const status = await options.ready();
    return status === 'ready' ? c.json({ status }) : c.json({ status }, 503);
  });
  registerMetricsRoute(root, httpMetrics);

  // The permission check wraps inside the validation: a key without the permission is refused first.
  // The audit record is opened first of all, so a refusal by either check is recorded.
  const api = validateWholeRequests(
    enforceRoutePermissions(
      enforceRouteAudit(new OpenAPIHono<AppEnv>(validationHook as never), 'api', keyActor),
    ),
  );
  // API keys and the admin token each have their own count of failures per client address.
  const throttle = () => new AuthThrottle(deps.config.authFailureLimit, options.authFailureWindowMs);
  const apiThrottle = throttle();
  const throttled = apiThrottle.guard();
  const rate = apiRate(deps);
  const authenticate = apiKeyAuth(apiThrottle, rate);
  const limiter = rateLimit(deps.config.rateLimit, rate);
  const isPublic = (path: string) => path === '/api/v1/openapi.json';
  const cors = apiCors(deps.config.corsOrigins); // first: a preflight carries no key
  if (cors) api.use('*', cors);
  api.use('*', (c, next) => (isPublic(c.req.path) ? next() : throttled(c, next)));
  api.use('*', lookAheadForList()); // after the throttle, beside the key's look-up
  api.use('*', (c, next) => (isPublic(c.req.path) ? next() : authenticate(c, next)));
  api.use('*', (c, next) => (isPublic(c.req.path) ? next() : limiter(c, next)));
  api.use('*', bodyCheck);
  registerMcpRoutes(root, [throttled, authenticate, limiter, bodyCheck]);
  registerAccountRoutes(api);
  registerInboxSettingsRoutes(api);
  registerMeRoute(api);
  registerDraftRoutes(api); // before /emails/{id} routes: /emails/drafts/... is literal
  registerSendRoutes(api);
  registerApprovalRoutes(api);
  registerEmailReadRoutes(api);
  registerEmailOrganiseRoutes(api);
  registerLabelRoutes(api);
  registerFolderRoutes(api);
  registerThreadRoutes(api);
  registerWebhookRoutes(api);
  registerListRoutes(api);
  registerAuditRoute(api);
  options.eventStreams.register(api);
  serveOpenApiDocument(api, '/openapi.json', {
    title: 'Mailroom API',
    description: 'Inboxes for software agents: list, read, send, reply, forward, organise and search mail.',
    server: '/api/v1',
    securityScheme: { name: 'bearerAuth', description: 'an API key: Authorization: Bearer <key>' },
    rateLimited: true,
  });
  root.route('/api/v1', api);
  root.route(
    '/admin/v1',
    createAdminApp({
      token: deps.config.adminToken,
      hook: validationHook as never,
      throttle: throttle(),
      bodyCheck,
    }),
  );
  registerDocs(root);
  // The dashboard's pages, on the same app at / (the API stays under /api/v1 and /admin/v1).
  registerDashboard(root, options.eventStreams.streamFeed);
  return root;
}
