import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { validationMessage, zodDetails } from '../contract/validation-messages.js';
import type { ContractErrorCode } from '../contract/error-codes.js';
import type { ErrorDetail } from '../mailbox/errors.js';
import { TryLater, mailroomErrorOf } from '../mailbox/errors.js';

/** The one place where error codes become HTTP statuses (contract 3). */
const STATUS: Record<ContractErrorCode, ContentfulStatusCode> = {
  validation_error: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  recipient_blocked: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  inbox_paused: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  loop_detected: 429,
  upstream_error: 502,
  unavailable: 503,
  internal_error: 500,
};

/** Seconds a client is asked to wait after a 503 unavailable. */
export const UNAVAILABLE_RETRY_AFTER_S = 30;

/** The HTTP status of an error code (the dashboard answers its pages with the same ones). */
export const statusOfCode = (code: ContractErrorCode): ContentfulStatusCode => STATUS[code];

export function errorBody(code: ContractErrorCode, message: string, details?: ErrorDetail[]) {
  return { success: false as const, error: { code, message, ...(details ? { details } : {}) } };
}

export function sendError(c: Context, code: ContractErrorCode, message: string, details?: ErrorDetail[]) {
  return c.json(errorBody(code, message, details), STATUS[code]);
}

export function sendValidationError(c: Context, error: ZodError, prefix = '') {
  return sendValidationDetails(c, zodDetails(error, prefix));
}

/** One 400 for every problem of a request; the message names the first and counts the rest. */
export function sendValidationDetails(c: Context, details: ErrorDetail[]) {
  return sendError(c, 'validation_error', validationMessage(details), details);
}

export function handleError(error: unknown, c: Context) {
  const known = mailroomErrorOf(error);
  if (known?.code === 'unavailable') {
    c.var.deps?.log.error(
      { err: error, path: c.req.path, requestId: c.get('requestId') },
      'storage unavailable',
    );
    c.header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
  }
  if (known instanceof TryLater) c.header('Retry-After', String(known.retryAfterSeconds));
  if (known) return sendError(c, known.code, known.message, known.details);
  const framework = frameworkError(error);
  if (framework) return sendError(c, framework.code, framework.message);
  c.var.deps?.log.error({ err: error, path: c.req.path, requestId: c.get('requestId') }, 'unhandled error');
  return sendError(c, 'internal_error', 'internal error');
}

/**
 * Hono's own refusals (HTTPException, or an error carrying a 4xx `status`) are the caller's
 * mistake, never a 500: each keeps its status under the contract's code for it.
 */
function frameworkError(error: unknown): { code: ContractErrorCode; message: string } | undefined {
  const status = error instanceof HTTPException ? error.status : (error as { status?: unknown }).status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const said = error instanceof Error ? error.message : '';
  if (status === 400 && /json/i.test(said)) {
    return { code: 'invalid_json', message: 'request body is not valid JSON: send a JSON object' };
  }
  const code = FRAMEWORK_CODES[status] ?? 'validation_error';
  return { code, message: FRAMEWORK_MESSAGES[code] ?? (said || 'invalid request') };
}

const FRAMEWORK_CODES: Partial<Record<number, ContractErrorCode>> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

const FRAMEWORK_MESSAGES: Partial<Record<ContractErrorCode, string>> = {
  payload_too_large: 'request body is too large',
  unsupported_media_type: 'request bodies must be sent with Content-Type: application/json',
};
