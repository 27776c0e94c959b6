import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { sendError } from '../errors.js';
import { jsonDepthOver } from '../json-depth.js';

/** Objects and arrays nested deeper than this are refused before any route parses them. */
export const MAX_JSON_DEPTH = 32;

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Requests that carry a body must say `application/json` (415), stay within `maxBytes` (413),
 * hold valid JSON (400 invalid_json) and nest at most MAX_JSON_DEPTH levels (400 invalid_json),
 * checked before any route so every route answers the same way. A body is counted as it
 * streams, so a chunked body without Content-Length is cut off at the limit, not read whole.
 */
export function jsonBody(maxBytes: number): MiddlewareHandler {
  const tooLarge = `request body exceeds ${maxBytes} bytes`;
  const limit = bodyLimit({ maxSize: maxBytes, onError: (c) => sendError(c, 'payload_too_large', tooLarge) });
  return async (c, next) => {
    if (!WITH_BODY.has(c.req.method)) return next();
    const length = Number(c.req.header('content-length') ?? '0');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (length > maxBytes) return sendError(c, 'payload_too_large', tooLarge);
    if (length === 0 && !chunked) return next();
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/(.+\+)?json\b/i.test(type)) {
      return sendError(
        c,
        'unsupported_media_type',
        'request bodies must be sent with Content-Type: application/json',
      );
    }
    let text = '';
    const refused = await limit(c, async () => {
      text = await c.req.text();
    });
    if (refused) return refused;
    if (jsonDepthOver(text, MAX_JSON_DEPTH))
      return sendError(c, 'invalid_json', `request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    try {
      JSON.parse(text);
    } catch {
      return sendError(c, 'invalid_json', 'request body is not valid JSON');
    }
    return next();
  };
}
