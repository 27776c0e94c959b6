import { parseEmail, parseHeadersOnlyBounded } from '../../mail/parse.js';
import type { ParsedAttachment, ParsedEmail } from '../../mail/types.js';
import type { MailboxDeps } from '../deps.js';
import { Unprocessable } from '../errors.js';
import { ParseTimeout } from './parse-pool.js';

/** Small and with few MIME parts: a few milliseconds at worst, since every parse step is linear. */
const INLINE_MAX_BYTES = 32 * 1024;
const INLINE_MAX_BOUNDARY_LINES = 8;

/**
 * Whether a message costs less to parse here than to hand to a thread and back (about 15% of
 * ingest throughput on 2 cores). Its worst hostile shape at this size blocks the event loop
 * about as long as a garbage collection; anything larger or with more parts goes to the pool.
 */
function parsesInline(raw: Buffer): boolean {
  if (raw.length > INLINE_MAX_BYTES) return false;
  let lines = 0;
  for (let at = raw.indexOf('\n--'); at >= 0; at = raw.indexOf('\n--', at + 3)) {
    if (++lines > INLINE_MAX_BOUNDARY_LINES) return false;
  }
  return true;
}

/**
 * Parses an inbound message: on a parse thread when there is a pool, inline otherwise. A parse
 * that fails there (past its deadline, or the thread died) falls back to a bounded reading of
 * the headers, so the message is still stored and its sender still gets 250.
 */
export async function parseInbound(deps: MailboxDeps, raw: Buffer): Promise<ParsedEmail> {
  if (!deps.parser || parsesInline(raw)) return parseEmail(raw, { content: 'none' });
  try {
    return await deps.parser.parse(raw);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    deps.log.warn({ reason: why, bytes: raw.length }, 'inbound message stored from its headers only');
    return parseHeadersOnlyBounded(
      raw,
      `full parse failed (${why}); only the headers and the start of the body were read`,
    );
  }
}

/** One attachment's bytes, parsed on a parse thread when there is a pool. */
export async function parseAttachment(
  deps: MailboxDeps,
  raw: Buffer,
  attachmentId: string,
): Promise<ParsedAttachment | null> {
  if (!deps.parser) {
    const parsed = await parseEmail(raw, { content: { only: attachmentId } });
    return parsed.attachments.find((a) => a.id === attachmentId) ?? null;
  }
  try {
    return await deps.parser.attachment(raw, attachmentId);
  } catch (error) {
    if (error instanceof ParseTimeout)
      throw new Unprocessable(`this message takes too long to parse (over ${error.deadlineMs} ms)`);
    throw error;
  }
}
