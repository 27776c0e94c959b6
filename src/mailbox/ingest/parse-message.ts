import type { Logger } from 'pino';
import { parseEmail, parseHeadersOnlyBounded } from '../../mail/parse.js';
import { parseReceived } from '../../mail/screening/parse-screened.js';
import { screenParsed } from '../../mail/screening/screen.js';
import type { ParsedAttachment, ParsedEmail } from '../../mail/types.js';
import { Unprocessable } from '../errors.js';
import type { ParsePool } from './parse-pool.js';
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

/** Where inbound mail and attachment reads are parsed: on parse threads, or on this thread. */
export interface Parser {
  /** The message with its attachments' metadata (content left empty), screened (contract 16). */
  parse(raw: Buffer): Promise<ParsedEmail>;
  /** One attachment of the message, content included; null when it has none with that id. */
  attachment(raw: Buffer, attachmentId: string): Promise<ParsedAttachment | null>;
  /** Starts its threads (the server's open()). */
  start(): void;
  /** Resolves once every thread has loaded the parser. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Parsing on this thread: the CLI, the ingest thread, a server with MAILROOM_PARSE_THREADS=0. */
export const inlineParser: Parser = {
  parse: parseReceived,
  async attachment(raw, attachmentId) {
    const parsed = await parseEmail(raw, { content: { only: attachmentId } });
    return parsed.attachments.find((a) => a.id === attachmentId) ?? null;
  },
  start() {},
  ready: async () => {},
  close: async () => {},
};

/**
 * Parsing on the pool's threads. A parse that fails there (past its deadline, or the thread
 * died) falls back to a bounded reading of the headers, so the message is still stored and its
 * sender still gets 250.
 */
export function threadParser(pool: ParsePool, log: Logger): Parser {
  return {
    async parse(raw) {
      if (parsesInline(raw)) return parseReceived(raw);
      try {
        return await pool.parse(raw);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        log.warn({ reason: why, bytes: raw.length }, 'inbound message stored from its headers only');
        return screenParsed(
          parseHeadersOnlyBounded(
            raw,
            `full parse failed (${why}); only the headers and the start of the body were read`,
          ),
        );
      }
    },
    async attachment(raw, attachmentId) {
      try {
        return await pool.attachment(raw, attachmentId);
      } catch (error) {
        if (error instanceof ParseTimeout)
          throw new Unprocessable(`this message takes too long to parse (over ${error.deadlineMs} ms)`);
        throw error;
      }
    },
    start: () => pool.start(),
    ready: () => pool.ready(),
    close: () => pool.close(),
  };
}
