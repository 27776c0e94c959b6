import { boundaryOf, linesOfBytes, multipartBoundary } from './mime-lines.js';

/** More parts than this and the rest of the message is not parsed (the stored raw stays whole). */
export const MAX_MIME_PARTS = 5000;
/**
 * Multiparts nested deeper than this are kept as one attachment each (Dovecot's limit too). The
 * parser's work per part grows with its depth (mailsplit numbers each part with its whole path),
 * so without a cap 5,000 parts nested one in another cost time quadratic in the message.
 */
export const MAX_MIME_DEPTH = 100;
/** One header field longer than this is cut: no real header needs 32 KB, a hostile one can be 25 MB. */
export const MAX_FIELD_BYTES = 32 * 1024;
/** Past this much header in one block only the first of each structural field is still read. */
export const MAX_HEADER_BLOCK = 256 * 1024;

const ADDRESS_FIELDS = new Set(['from', 'to', 'cc', 'bcc', 'reply-to', 'sender']);
const KEPT_PAST_LIMIT = new Set([
  ...'content-type content-transfer-encoding content-disposition content-id mime-version'.split(' '),
  ...'from to cc bcc reply-to subject date message-id in-reply-to references'.split(' '),
]);
const FIELD_NAME = /^([^:\s]+)[ \t]*:/;
const BOUNDARY_PARAM = /;\s*boundary\s*=\s*(?:"[^"]*"|[^;\s]*)/i;
/** Marks a part whose multipart/* type could not be one (no boundary, or encoded): read as a leaf. */
export const ORIGINAL_TYPE_PARAM = 'x-mailroom-original-type';

export interface BoundedMime {
  /** What mailparser reads: the raw message, or a copy with the edits below. */
  input: Buffer;
  warnings: string[];
  /** Address fields that were cut: about how many addresses the whole field held. */
  addressTotals: Map<string, number>;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

interface Field {
  name: string;
  start: number;
  end: number;
}

/**
 * Bounds what mailparser is asked to read, in one linear pass: header fields and header blocks
 * are capped, parts past MAX_MIME_PARTS are cut off, and a part typed `multipart/*` that cannot be
 * one (no boundary, or a base64/quoted-printable body) is retyped so it is kept as an attachment
 * instead of vanishing. Only the copy handed to the parser changes.
 */
export function boundMime(raw: Buffer): BoundedMime {
  // Read as latin1 a piece at a time (offsets are bytes): a string of a 25 MB message was 25 MB.
  const text = (start: number, end: number) => raw.toString('latin1', start, end);
  const edits: Edit[] = [];
  const markers = new Set<string>();
  /** The markers of the multiparts the current line is inside, outermost first. */
  const open: string[] = [];
  const addressTotals = new Map<string, number>();
  let cutFields = 0;
  let droppedFields = 0;
  let retyped = 0;
  let tooDeep = 0;
  let parts = 0;
  let cutAt: number | null = null;

  let inHeader = true;
  let field: Field | null = null;
  let blockBytes = 0;
  let keptPastLimit = new Set<string>();
  let contentType: { field: Field; edit: Edit | null } | null = null;
  let encoding = '';

  const endField = (): void => {
    if (!field) return;
    const { name, start, end } = field;
    field = null;
    const length = end - start;
    let edit: Edit | null = null;
    if (blockBytes > MAX_HEADER_BLOCK && !(KEPT_PAST_LIMIT.has(name) && !keptPastLimit.has(name))) {
      edit = { start, end, text: '' };
      droppedFields++;
    } else if (length > MAX_FIELD_BYTES) {
      edit = {
        start,
        end,
        text: cutField(text(start, Math.min(end, start + MAX_FIELD_BYTES)), ADDRESS_FIELDS.has(name)),
      };
      cutFields++;
      if (ADDRESS_FIELDS.has(name)) addressTotals.set(name, countCommas(raw, start, end) + 1);
    }
    if (edit) edits.push(edit);
    if (blockBytes > MAX_HEADER_BLOCK) keptPastLimit.add(name);
    blockBytes += Math.min(length, MAX_FIELD_BYTES);
    if (edit?.text === '') return;
    const value = () => text(start, Math.min(end, start + MAX_FIELD_BYTES));
    if (name === 'content-type' && !contentType) contentType = { field: { name, start, end }, edit };
    if (name === 'content-transfer-encoding')
      encoding = value()
        .slice(value().indexOf(':') + 1)
        .trim();
  };

  /** The blank line after a header block: what the block's Content-Type makes of the body. */
  const endBlock = (): void => {
    endField();
    const type = contentType;
    contentType = null;
    inHeader = false;
    const field = type ? (type.edit?.text ?? text(type.field.start, type.field.end)) : '';
    const value = field.slice(field.indexOf(':') + 1);
    blockBytes = 0;
    keptPastLimit = new Set();
    const enc = encoding.toLowerCase();
    encoding = '';
    if (type && /^\s*multipart\//i.test(value)) {
      const marker = multipartBoundary(value);
      const usable = marker && !/base64|quoted-printable/.test(enc);
      if (usable && open.length < MAX_MIME_DEPTH) {
        markers.add(marker);
        open.push(marker);
        return;
      }
      const retypedText = retype(value);
      if (type.edit) type.edit.text = retypedText;
      else edits.push({ start: type.field.start, end: type.field.end, text: retypedText });
      if (usable) tooDeep++;
      else retyped++;
    } else if (/^\s*message\/(rfc822|global)\b/i.test(value) && !/base64|quoted-printable/.test(enc)) {
      inHeader = true; // the embedded message's own header block follows
    }
  };

  // In a body only a `--` line can matter (a boundary): the others are skipped without a string.
  const wanted = (start: number) => inHeader || (raw[start] === 0x2d && raw[start + 1] === 0x2d);
  for (const line of linesOfBytes(raw, wanted)) {
    const boundary = markers.size > 0 ? boundaryOf(line.text, markers) : null;
    if (boundary) {
      if (inHeader) endBlock();
      // A boundary of an outer multipart ends every multipart opened inside it.
      const at = open.lastIndexOf(boundary.marker);
      if (at >= 0) open.length = boundary.closing ? at : at + 1;
      if (boundary.closing) continue;
      if (++parts > MAX_MIME_PARTS) {
        cutAt = line.start;
        break;
      }
      inHeader = true;
      continue;
    }
    if (!inHeader) continue;
    if (line.text === '') {
      endBlock();
    } else if (field && /^[ \t]/.test(line.text)) {
      field.end = line.next;
    } else {
      endField();
      const name = FIELD_NAME.exec(line.text)?.[1]?.toLowerCase() ?? '';
      field = { name, start: line.start, end: line.next };
    }
  }
  if (inHeader) endField();

  const warnings: string[] = [];
  if (cutFields) warnings.push(`${cutFields} header field(s) longer than ${MAX_FIELD_BYTES} bytes were cut`);
  if (droppedFields)
    warnings.push(`${droppedFields} header field(s) past ${MAX_HEADER_BLOCK} bytes of header were left out`);
  if (retyped)
    warnings.push(`${retyped} part(s) typed multipart/* without a usable boundary kept as attachments`);
  if (tooDeep)
    warnings.push(`${tooDeep} multipart(s) nested deeper than ${MAX_MIME_DEPTH} levels kept as attachments`);
  if (cutAt !== null)
    warnings.push(`more than ${MAX_MIME_PARTS} MIME parts; the rest of the message was not read`);
  return { input: applyEdits(raw, edits, cutAt ?? raw.length), warnings, addressTotals };
}

function applyEdits(raw: Buffer, edits: Edit[], end: number): Buffer {
  if (edits.length === 0 && end === raw.length) return raw;
  const pieces: Buffer[] = [];
  let at = 0;
  for (const edit of edits.sort((a, b) => a.start - b.start)) {
    if (edit.start >= end) break;
    pieces.push(raw.subarray(at, edit.start), Buffer.from(edit.text, 'latin1'));
    at = edit.end;
  }
  pieces.push(raw.subarray(at, Math.max(at, end)));
  return Buffer.concat(pieces);
}

/** A field's first MAX_FIELD_BYTES, ending a line; an address list is cut after its last whole address. */
function cutField(first: string, addresses: boolean): string {
  let text = first;
  if (addresses) {
    const comma = text.lastIndexOf(',');
    if (comma > text.indexOf(':')) text = text.slice(0, comma);
  }
  return `${text.replace(/[\r\n]+$/, '')}\r\n`;
}

function countCommas(raw: Buffer, start: number, end: number): number {
  let count = 0;
  for (let at = raw.indexOf(0x2c, start); at >= 0 && at < end; at = raw.indexOf(0x2c, at + 1)) count++;
  return count;
}

/**
 * `multipart/x-zip; name=a.zip` -> `application/octet-stream; x-mailroom-original-type="multipart/x-zip"; name=a.zip`.
 * The boundary goes: mailsplit would still split a leaf at its own boundary.
 */
function retype(value: string): string {
  const type = /^\s*(multipart\/[^;\s]*)/i.exec(value)?.[1] ?? 'multipart/mixed';
  const params = value
    .trim()
    .slice(type.length)
    .replace(BOUNDARY_PARAM, '')
    .replace(/[\r\n]+$/, '');
  return `Content-Type: application/octet-stream; ${ORIGINAL_TYPE_PARAM}="${type}"${params}\r\n`;
}
