import crypto from 'node:crypto';
import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import {
  addDomain,
  addLocalInbox,
  addUser,
  connectInbox,
  createKey,
  domainView,
  inboxView,
  keyView,
  listDomains,
  listInboxes,
  listKeys,
  listUsers,
  removeDomain,
  removeInbox,
  removeUser,
  requireUser,
  revokeKey,
} from '../../mailbox/operations/admin.js';
import { listNodes } from '../../mailbox/operations/nodes.js';
import type { AppEnv } from '../context.js';
import type { AuthThrottle } from '../middleware/auth-throttle.js';
import { ok } from '../envelope.js';
import { sendError } from '../errors.js';
import { validateWholeRequests } from '../middleware/validate-request.js';
import { serveOpenApiDocument } from '../openapi-document.js';
import {
  AdminDomain,
  AdminInbox,
  AdminKey,
  AdminKeyWithSecret,
  AdminNode,
  AdminUser,
  ConnectedServers,
  CreateDomainBody,
  CreateKeyBody,
  CreateUserBody,
  userRef,
} from '../../contract/admin.js';
import { PROVIDER_NAMES } from '../../mailbox/connect/providers.js';
import { envelope } from '../../contract/common.js';
import { commonErrors, jsonBody, okResponse } from '../route-docs.js';
import type { AuditAction } from '../../contract/audit.js';
import { adminActor, audited, enforceRouteAudit } from '../route-audit.js';
import { registerAdminAuditRoute } from './admin-audit.js';

const adminSecurity = [{ adminAuth: [] }];
const errors = {
  400: commonErrors[400],
  401: { ...commonErrors[401], description: 'Missing or wrong admin token' },
  404: { ...commonErrors[404], description: 'Not found, or the admin API is disabled' },
  429: { ...commonErrors[429], description: 'Too many failed admin token attempts from this address' },
  503: commonErrors[503],
};
/** Trust for a server the system's CAs do not vouch for (self-signed Dovecot, a private CA). */
const TlsTrustBody = z
  .object({
    ca: z.string().optional().openapi({ description: 'PEM certificate(s) to trust for this server' }),
    insecure: z
      .boolean()
      .optional()
      .openapi({ description: 'skip the certificate check altogether (shown as `certificates: "off"`)' }),
  })
  .optional()
  .openapi('TlsTrust');

const conflict = { 409: { ...commonErrors[404], description: 'The name is taken' } };
const created = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  201: { description, content: { 'application/json': { schema: envelope(schema) } } },
});

function adminAuth(token: string | undefined, throttle: AuthThrottle): MiddlewareHandler<AppEnv> {
  const expected = token ? crypto.createHash('sha256').update(token).digest() : undefined;
  return async (c, next) => {
    if (!expected) return sendError(c, 'not_found', 'the admin API is disabled; set MAILROOM_ADMIN_TOKEN');
    const presented = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
    const digest = crypto.createHash('sha256').update(presented).digest();
    if (!crypto.timingSafeEqual(digest, expected)) {
      throttle.failed(c);
      c.header('WWW-Authenticate', 'Bearer');
      return sendError(c, 'unauthorized', 'a valid admin token is required');
    }
    return next();
  };
}

const common = { tags: ['Admin'], security: adminSecurity };
const route = <M extends 'get' | 'post' | 'delete', P extends string>(
  method: M,
  path: P,
  operationId: string,
  summary: string,
  action?: AuditAction,
) => ({ method, path, operationId, summary, ...common, ...(action ? audited(action) : {}) });

export interface AdminAppOptions {
  /** MAILROOM_ADMIN_TOKEN; without it every admin route answers 404. */
  token: string | undefined;
  hook: ConstructorParameters<typeof OpenAPIHono<AppEnv>>[0];
  /** Failed token attempts per client address: checked before the token, counted after. */
  throttle: AuthThrottle;
  bodyCheck?: MiddlewareHandler;
}

export function createAdminApp({ token, hook, throttle, bodyCheck }: AdminAppOptions) {
  const app = validateWholeRequests(enforceRouteAudit(new OpenAPIHono<AppEnv>(hook), 'admin', adminActor));
  const guard = throttle.guard();
  const auth = adminAuth(token, throttle);
  // The document is public once the admin API is on, as /api/v1/openapi.json is; off, it is 404.
  const isDocument = (c: Context) => token !== undefined && c.req.path === '/admin/v1/openapi.json';
  app.use('*', (c, next) => (isDocument(c) ? next() : guard(c, next)));
  app.use('*', (c, next) => (isDocument(c) ? next() : auth(c, next)));
  if (bodyCheck) app.use('*', bodyCheck);
  const name = z.object({ name: z.string().min(1) });

  app.openapi(
    createRoute({
      ...route(
        'post',
        '/domains',
        'createDomain',
        'Host a domain: creates its DKIM key and returns the DNS records to publish',
        'domain.create',
      ),
      request: jsonBody(CreateDomainBody),
      responses: { ...created(z.object({ domain: AdminDomain }), 'The domain'), ...errors, ...conflict },
    }),
    async (c) => {
      const deps = c.var.deps;
      return ok(
        c,
        {
          domain: domainView(
            await addDomain(deps, c.req.valid('json').domain, c.var.audit),
            deps.config.hostname,
          ),
        },
        201,
      );
    },
  );
  app.openapi(
    createRoute({
      ...route('get', '/nodes', 'listNodes', 'Live nodes sharing the database and what each holds'),
      responses: {
        ...okResponse(envelope(z.object({ nodes: z.array(AdminNode) })), 'Nodes heard from in the last 30 s'),
        ...errors,
      },
    }),
    async (c) => ok(c, { nodes: await listNodes(c.var.deps) }),
  );
  app.openapi(
    createRoute({
      ...route('get', '/domains', 'listDomains', 'Hosted domains'),
      responses: {
        ...okResponse(envelope(z.object({ domains: z.array(AdminDomain) })), 'Domains'),
        ...errors,
      },
    }),
    async (c) =>
      ok(c, {
        domains: (await listDomains(c.var.deps)).map((d) => domainView(d, c.var.deps.config.hostname)),
      }),
  );
  app.openapi(
    createRoute({
      ...route('delete', '/domains/{name}', 'deleteDomain', 'Stop hosting a domain', 'domain.remove'),
      request: { params: name },
      responses: { ...okResponse(envelope(z.object({ deleted: z.boolean() })), 'Deleted'), ...errors },
    }),
    async (c) => {
      await removeDomain(c.var.deps, c.req.valid('param').name, c.var.audit);
      return ok(c, { deleted: true });
    },
  );

  app.openapi(
    createRoute({
      ...route('post', '/users', 'createUser', 'Create a user', 'user.create'),
      request: jsonBody(CreateUserBody),
      responses: { ...created(z.object({ user: AdminUser }), 'The user'), ...errors, ...conflict },
    }),
    async (c) => {
      const { name, password, admin } = c.req.valid('json');
      return ok(c, { user: await addUser(c.var.deps, name, { password, admin }, c.var.audit) }, 201);
    },
  );
  app.openapi(
    createRoute({
      ...route('get', '/users', 'listUsers', 'Users'),
      responses: { ...okResponse(envelope(z.object({ users: z.array(AdminUser) })), 'Users'), ...errors },
    }),
    async (c) => ok(c, { users: await listUsers(c.var.deps) }),
  );
  app.openapi(
    createRoute({
      ...route(
        'delete',
        '/users/{id}',
        'deleteUser',
        'Remove a user with its inboxes, keys, labels and webhooks',
        'user.remove',
      ),
      request: { params: z.object({ id: z.string() }) },
      responses: { ...okResponse(envelope(z.object({ deleted: z.boolean() })), 'Deleted'), ...errors },
    }),
    async (c) => {
      await removeUser(c.var.deps, c.req.valid('param').id, c.var.audit);
      return ok(c, { deleted: true });
    },
  );

  app.openapi(
    createRoute({
      ...route('post', '/keys', 'createKey', 'Create an API key; the key is shown only here', 'key.create'),
      request: jsonBody(CreateKeyBody),
      responses: { ...created(z.object({ key: AdminKeyWithSecret }), 'The key'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const { user, ...options } = body;
      const { row, key } = await createKey(c.var.deps, user, options, c.var.audit);
      return ok(c, { key: { ...(await keyView(c.var.deps, row)), key } }, 201);
    },
  );
  app.openapi(
    createRoute({
      ...route('get', '/keys', 'listKeys', 'API keys (never the key itself)'),
      request: { query: z.object({ user: z.string().optional() }) },
      responses: { ...okResponse(envelope(z.object({ keys: z.array(AdminKey) })), 'Keys'), ...errors },
    }),
    async (c) => {
      const user = c.req.valid('query').user;
      const userId = user !== undefined ? (await requireUser(c.var.deps, user)).id : undefined;
      return ok(c, { keys: await listKeys(c.var.deps, userId) });
    },
  );
  app.openapi(
    createRoute({
      ...route('delete', '/keys/{id}', 'revokeKey', 'Revoke an API key', 'key.revoke'),
      request: { params: z.object({ id: z.string() }) },
      responses: { ...okResponse(envelope(z.object({ revoked: z.boolean() })), 'Revoked'), ...errors },
    }),
    async (c) => {
      await revokeKey(c.var.deps, c.req.valid('param').id, undefined, c.var.audit);
      return ok(c, { revoked: true });
    },
  );

  app.openapi(
    createRoute({
      ...route(
        'post',
        '/inboxes',
        'createInbox',
        'Create an inbox on a hosted domain, or connect an external mailbox',
        'inbox.create',
      ),
      description:
        'An external mailbox is reached by its `imap` and `smtp` URLs, by a `provider` preset, or ' +
        'by autodiscovery from the address alone (autoconfig document, SRV records, common host ' +
        'names) when `password` or `refreshToken` is given without either; `servers` in the answer ' +
        'says what was chosen and where it came from. A `refreshToken` (with its `provider`) logs in ' +
        'with OAuth2 using the team client of MAILROOM_OAUTH_<PROVIDER>_CLIENT_ID. The login is tried ' +
        'at once: a refused login is 502, an unreachable server 422. Credentials are stored encrypted ' +
        'and never returned.',
      request: jsonBody(
        z
          .object({
            address: z.string().min(1),
            user: userRef,
            displayName: z.string().max(200).optional(),
            imap: z
              .object({
                url: z.string().min(1).openapi({ example: 'imaps://user:pass@imap.example.com:993' }),
                tls: TlsTrustBody,
              })
              .optional(),
            smtp: z
              .object({
                url: z.string().min(1).openapi({ example: 'smtps://user:pass@smtp.example.com:465' }),
                tls: TlsTrustBody,
              })
              .optional(),
            provider: z
              .enum(PROVIDER_NAMES)
              .optional()
              .openapi({ description: 'fills the servers, ports and TLS from a preset' }),
            password: z
              .string()
              .min(1)
              .optional()
              .openapi({ description: 'for a provider or autodiscovery, or URLs without one' }),
            refreshToken: z
              .string()
              .min(1)
              .optional()
              .openapi({ description: "an OAuth2 refresh token from the provider, for the team's client" }),
          })
          .refine((b) => (b.imap === undefined) === (b.smtp === undefined), {
            message: 'an external mailbox needs both imap and smtp',
            path: ['smtp'],
          })
          .openapi({ dependentRequired: { imap: ['smtp'], smtp: ['imap'] } } as never),
      ),
      responses: {
        ...created(z.object({ inbox: AdminInbox, servers: ConnectedServers.optional() }), 'The inbox'),
        ...errors,
        409: { ...commonErrors[404], description: 'The address is taken' },
        422: {
          ...commonErrors[404],
          description: 'The IMAP or SMTP server cannot be reached, or none was discovered',
        },
        502: {
          ...commonErrors[404],
          description: 'The IMAP or SMTP server (or the OAuth2 provider) refused the login',
        },
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const { deps } = c.var;
      const external = [body.imap, body.provider, body.password, body.refreshToken].some(
        (v) => v !== undefined,
      );
      if (!external) {
        const inbox = await addLocalInbox(deps, body.address, body.user, body.displayName ?? '', c.var.audit);
        return ok(c, { inbox: await inboxView(deps, inbox) }, 201);
      }
      const { inbox, servers } = await connectInbox(
        deps,
        {
          address: body.address,
          user: body.user,
          by: 'operator',
          displayName: body.displayName ?? '',
          ...(body.imap && body.smtp ? { imap: body.imap.url, smtp: body.smtp.url } : {}),
          ...(body.provider ? { provider: body.provider } : {}),
          ...(body.password !== undefined ? { password: body.password } : {}),
          ...(body.refreshToken !== undefined ? { refreshToken: body.refreshToken } : {}),
          imapTls: body.imap?.tls,
          smtpTls: body.smtp?.tls,
        },
        c.var.audit,
      );
      return ok(c, { inbox: await inboxView(deps, inbox), servers }, 201);
    },
  );
  app.openapi(
    createRoute({
      ...route('get', '/inboxes', 'listInboxes', 'Inboxes'),
      request: { query: z.object({ user: z.string().optional() }) },
      responses: {
        ...okResponse(envelope(z.object({ inboxes: z.array(AdminInbox) })), 'Inboxes'),
        ...errors,
      },
    }),
    async (c) => {
      const rows = await listInboxes(c.var.deps, c.req.valid('query').user);
      return ok(c, { inboxes: await Promise.all(rows.map((i) => inboxView(c.var.deps, i))) });
    },
  );
  app.openapi(
    createRoute({
      ...route(
        'delete',
        '/inboxes/{address}',
        'deleteInbox',
        'Remove an inbox and all its mail',
        'inbox.remove',
      ),
      request: { params: z.object({ address: z.string() }) },
      responses: { ...okResponse(envelope(z.object({ deleted: z.boolean() })), 'Deleted'), ...errors },
    }),
    async (c) => {
      await removeInbox(c.var.deps, c.req.valid('param').address, undefined, c.var.audit);
      return ok(c, { deleted: true });
    },
  );
  registerAdminAuditRoute(app, common);
  serveOpenApiDocument(app, '/openapi.json', {
    title: 'Mailroom admin API',
    description: 'Domains, users, API keys and inboxes, as the mailroom command manages them.',
    server: '/admin/v1',
    securityScheme: { name: 'adminAuth', description: 'MAILROOM_ADMIN_TOKEN: Authorization: Bearer <token>' },
    rateLimited: false,
  });
  return app;
}
