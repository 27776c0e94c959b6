import type { MiddlewareHandler } from 'hono';
import { sendError } from '../errors.js';

/**
 * Requests that carry a body must say `application/json` (415) and hold valid JSON (400
 * invalid_json), checked before any route so every route answers the same way.
 */
export function jsonBody(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(c.req.method)) return next();
    const length = Number(c.req.header('content-length') ?? '0');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (length > maxBytes) return sendError(c, 'payload_too_large', `request body exceeds ${maxBytes} bytes`);
    if (length === 0 && !chunked) return next();
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/(.+\+)?json\b/i.test(type)) {
      return sendError(
        c,
        'unsupported_media_type',
        'request bodies must be sent with Content-Type: application/json',
      );
    }
    const text = await c.req.text();
    if (Buffer.byteLength(text) > maxBytes)
      return sendError(c, 'payload_too_large', `request body exceeds ${maxBytes} bytes`);
    try {
      JSON.parse(text);
    } catch {
      return sendError(c, 'invalid_json', 'request body is not valid JSON');
    }
    return next();
  };
}
