import type { Context, TypedResponse } from 'hono';
import type { JSONParsed } from 'hono/utils/types';

type Status = 200 | 201 | 202;

/** A success envelope as a typed response: `app.openapi` checks it against the route's schema. */
export type Ok<Body, S extends Status> = TypedResponse<JSONParsed<Body>, S, 'json'>;

/**
 * Success envelope: `{ success: true, data, message? }`, typed so that `app.openapi` checks
 * `data` against the route's response schema for the status given (200 unless told).
 */
export function ok<T extends object>(c: Context, data: T): Ok<{ success: true; data: T }, 200>;
export function ok<T extends object, S extends Status>(
  c: Context,
  data: T,
  status: S,
): Ok<{ success: true; data: T }, S>;
export function ok<T extends object, S extends Status>(
  c: Context,
  data: T,
  status: S,
  message: string,
): Ok<{ success: true; data: T; message: string }, S>;
export function ok(
  c: Context,
  data: object,
  status?: Status,
  message?: string,
): TypedResponse<unknown, Status, 'json'> {
  return c.json(
    { success: true as const, data, ...(message !== undefined ? { message } : {}) },
    status ?? 200,
  );
}
