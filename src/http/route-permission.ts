import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { Permission } from '../mailbox/caller.js';
import { requirePermission } from '../mailbox/caller.js';
import type { AppEnv } from './context.js';
import { bearerSecurity } from './route-docs.js';

/**
 * Where a route's permission is written: in its own definition (`...needs('read')`), and from
 * there in the OpenAPI document, so a client and the test that walks every route read it too.
 */
export const PERMISSION_FIELD = 'x-mailroom-permission';

/** What a route declares: a permission, or `none` for what any key may ask (who it is: /me). */
export type RouteNeed = Permission | 'none';

/** A key route's security and the permission it needs (contract 14). */
export function needs(permission: RouteNeed) {
  return { security: bearerSecurity, [PERMISSION_FIELD]: permission } as const;
}

function permissionCheck(permission: Permission): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    requirePermission(c.var.caller, permission);
    await next();
  };
}

/**
 * Makes every route later registered on `app` check, before anything else of the route, that the
 * key holds the permission the route declares; a route that declares none is refused at start.
 */
export function enforceRoutePermissions<A extends OpenAPIHono<AppEnv>>(app: A): A {
  const register = app.openapi;
  app.openapi = ((route: RouteConfig & { [PERMISSION_FIELD]?: RouteNeed }, handler: never, hook: never) => {
    const need = route[PERMISSION_FIELD];
    if (need === undefined)
      throw new Error(
        `route ${route.method.toUpperCase()} ${route.path} declares no permission: add ...needs()`,
      );
    const own = route.middleware === undefined ? [] : [route.middleware].flat();
    const middleware = need === 'none' ? own : [permissionCheck(need), ...own];
    return register({ ...route, middleware } as never, handler, hook);
  }) as A['openapi'];
  return app;
}
