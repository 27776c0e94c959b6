import type { Readable } from 'node:stream';
import { MailParser } from 'mailparser';
import type { AttachmentStream, HeaderLines, Headers, MailParserOptions, MessageText } from 'mailparser';

/** An attachment as read: its bytes only when they were asked for, its size always. */
export interface CollectedAttachment extends Omit<AttachmentStream, 'content' | 'release'> {
  content: Buffer | null;
  size: number;
  related?: boolean;
}

export interface CollectedMail {
  headers: Headers;
  headerLines: HeaderLines;
  text?: string;
  html?: string | false;
  textConversionError?: unknown;
  attachments: CollectedAttachment[];
}

/** Which attachments (by position, 0 first) keep their bytes. */
export type KeepContent = (index: number) => boolean;

/**
 * mailparser's simpleParser (its keepCidLinks path) without holding every attachment in memory:
 * an attachment not asked for is counted as it streams past, then dropped.
 */
export function collectMail(
  input: Buffer,
  options: MailParserOptions,
  keep: KeepContent,
): Promise<CollectedMail> {
  return new Promise((resolve, reject) => {
    const mail: CollectedMail = { headers: new Map(), headerLines: [], attachments: [] };
    const parser = new MailParser(options);
    // MailParser may emit a non-fatal 'error' and still reach 'end': the first outcome wins.
    let settled = false;
    const settle = (error: unknown): void => {
      if (settled) return;
      settled = true;
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(mail);
    };
    parser.on('error', settle);
    parser.on('headers', (headers: Headers) => {
      mail.headers = headers;
      mail.headerLines = (parser as unknown as { headerLines: HeaderLines }).headerLines;
    });

    let reading = false;
    const reader = (): void => {
      reading = true;
      const data = parser.read() as AttachmentStream | MessageText | null;
      if (data === null) {
        reading = false;
        return;
      }
      if (data.type === 'text') {
        const text = data as MessageText & { textConversionError?: unknown };
        if ('text' in text) mail.text = text.text;
        if ('html' in text) mail.html = text.html as string | false;
        if ('textConversionError' in text) mail.textConversionError = text.textConversionError;
        reader();
        return;
      }
      readAttachment(data, keep(mail.attachments.length), mail.attachments, reader);
    };
    parser.on('readable', () => {
      if (!reading) reader();
    });
    parser.on('end', () => settle(null));
    feed(parser, input);
  });
}

/** Bytes handed to the parser at a time (views of the input, not copies). */
const PIECE_BYTES = 64 * 1024;

/**
 * Writes the message to the parser in pieces, waiting whenever it asks to. Given all at once,
 * every stage (the MIME splitter, the base64 decoder, the attachment stream) held its own copy
 * of the whole body: a 25 MB message took about 100 MB more while it was parsed.
 */
function feed(parser: MailParser, input: Buffer): void {
  let at = 0;
  const more = (): void => {
    while (at < input.length) {
      const piece = input.subarray(at, at + PIECE_BYTES);
      at += piece.length;
      if (!parser.write(piece)) {
        parser.once('drain', more);
        return;
      }
    }
    parser.end();
  };
  more();
}

function readAttachment(
  data: AttachmentStream,
  keepBytes: boolean,
  into: CollectedAttachment[],
  next: () => void,
): void {
  const stream = data.content as Readable;
  // The parser's own object, as simpleParser keeps it (it may still fill in fields); the stream swapped out.
  const attachment = Object.assign(data, { content: null, size: 0 }) as unknown as CollectedAttachment;
  into.push(attachment);
  const chunks: Buffer[] = [];
  stream.on('readable', () => {
    for (let chunk = stream.read() as Buffer | null; chunk; chunk = stream.read() as Buffer | null) {
      attachment.size += chunk.length;
      if (keepBytes) chunks.push(chunk);
    }
  });
  stream.on('end', () => {
    if (keepBytes) attachment.content = Buffer.concat(chunks, attachment.size);
    data.release?.();
    next();
  });
}
