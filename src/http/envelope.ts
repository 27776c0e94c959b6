import type { Context } from 'hono';

/**
 * Success envelope: `{ success: true, data, message? }`. Typed `any` on purpose: the zod
 * schemas document the response and the e2e tests check it, while @hono/zod-openapi's typed
 * responses would demand one literal status per route.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function ok<T extends object>(c: Context, data: T, status: 200 | 201 = 200, message?: string): any {
  return c.json({ success: true as const, data, ...(message !== undefined ? { message } : {}) }, status);
}
