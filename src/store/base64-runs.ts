/**
 * Base64 in a stored source, kept as the bytes it stands for (issue 31). Brotli finds little in
 * base64: it hides the 3-byte structure of what it encodes, so a PDF, a logo or a CSV sent as an
 * attachment compresses as if it were noise. Each run of base64 lines is replaced by its decoded
 * bytes before compression and encoded again when the source is read, byte for byte: a run is
 * taken only when encoding its bytes again gives back exactly the text it came from (its lines
 * whole groups of four, its padding as an encoder writes it: canonicalEnd).
 *
 * No MIME parsing: a run is lines of base64 of one length (a multiple of 4), each ended by CRLF,
 * the last one possibly shorter. A piece of a big source (message-sources.ts) is handled on its
 * own; a run cut by a piece's end stops at its last whole line.
 *
 * The decoded form: a count of runs (u32), for each its gap (u32: bytes as they are before it,
 * from the end of the one before), its decoded size (u32) and its line length (u16); then the
 * bytes, each gap followed by its run's decoded bytes, then the rest.
 */

/** Runs that would decode to fewer bytes are left as text: the gain would not pay for the entry. */
const MIN_RUN_BYTES = 768;
const RUN_ENTRY_BYTES = 10;
/**
 * Lines decoded and checked at a time: strings and buffers of tens of KB that die young, not
 * copies as long as the run (a 25 MB attachment's 1 MB pieces, several messages at once in a sync).
 */
const SEGMENT_LINES = 512;
const CR = 13;
const LF = 10;
const EQUALS = 61;
const CRLF = Buffer.from('\r\n');

/** Each base64 letter's value; -1 for every other byte, '=' included. */
const VALUE = new Int8Array(256).fill(-1);
for (const [value, letter] of [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
].entries())
  VALUE[letter.charCodeAt(0)] = value;

interface Run {
  start: number;
  end: number;
  lineLength: number;
  /** What it decodes to, a segment a buffer. */
  bytes: Buffer[];
  size: number;
}

/**
 * A line [start, end) of base64: `plain` (letters only), `padded` (letters, then one or two '='
 * ending it: the end of a run), or undefined when it is not base64.
 */
function lineKind(raw: Buffer, start: number, end: number): 'plain' | 'padded' | undefined {
  let at = start;
  while (at < end && VALUE[raw[at]!]! >= 0) at++;
  if (at === end) return 'plain';
  const pads = end - at;
  if (at === start || pads > 2 || raw[at] !== EQUALS || raw[end - 1] !== EQUALS) return undefined;
  return 'padded';
}

/**
 * Whether the last line of a run, [start, end), ends base64 as an encoder writes it: whole groups
 * of four, and no bits set in what the padding leaves over. With every other line whole groups
 * too, encoding the run's bytes again then gives back exactly its text.
 */
function canonicalEnd(raw: Buffer, start: number, end: number): boolean {
  if ((end - start) % 4 !== 0) return false;
  const pads = raw[end - 2] === EQUALS ? 2 : raw[end - 1] === EQUALS ? 1 : 0;
  const spare = pads === 2 ? 0x0f : pads === 1 ? 0x03 : 0;
  return (VALUE[raw[end - 1 - pads]!]! & spare) === 0;
}

/** `bytes` as base64 in lines of `lineLength`, each ended by CRLF: what a run's text was. */
function encodeRun(bytes: Buffer, lineLength: number): Buffer {
  const text = Buffer.from(bytes.toString('base64'), 'latin1');
  const lines = Math.ceil(text.length / lineLength);
  const out = Buffer.allocUnsafe(text.length + 2 * lines);
  let at = 0;
  for (let from = 0; from < text.length; from += lineLength) {
    at += text.copy(out, at, from, Math.min(from + lineLength, text.length));
    out[at++] = CR;
    out[at++] = LF;
  }
  return out;
}

/** The run starting at the line [start, lineEnd), if it is one worth decoding and comes back exactly. */
function runAt(raw: Buffer, start: number, lineEnd: number, kind: 'plain' | 'padded'): Run | { end: number } {
  const lineLength = lineEnd - start;
  let end = lineEnd + 2;
  let lastStart = start;
  let last = kind === 'padded';
  while (!last && end < raw.length) {
    const next = raw.indexOf(CRLF, end);
    if (next < 0) break;
    const length = next - end;
    const nextKind = length > 0 && length <= lineLength ? lineKind(raw, end, next) : undefined;
    if (nextKind === undefined) break;
    lastStart = end;
    end = next + 2;
    last = length < lineLength || nextKind === 'padded';
  }
  if ((end - start) * 0.7 < MIN_RUN_BYTES || !canonicalEnd(raw, lastStart, end - 2)) return { end };
  const bytes = decodeRun(raw, start, end, lineLength);
  return { start, end, lineLength, bytes, size: bytes.reduce((sum, b) => sum + b.length, 0) };
}

/**
 * The bytes of the run of lines [start, end), SEGMENT_LINES lines at a time (each whole line is
 * whole groups of four). Node's decoder passes over the CRLFs.
 */
function decodeRun(raw: Buffer, start: number, end: number, lineLength: number): Buffer[] {
  const segment = SEGMENT_LINES * (lineLength + 2);
  const out: Buffer[] = [];
  for (let from = start; from < end; from += segment)
    out.push(Buffer.from(raw.toString('latin1', from, Math.min(end, from + segment)), 'base64'));
  return out;
}

function findRuns(raw: Buffer): Run[] {
  const runs: Run[] = [];
  let at = 0;
  while (at < raw.length) {
    const lineEnd = raw.indexOf(CRLF, at);
    if (lineEnd < 0) break;
    const length = lineEnd - at;
    const kind = length >= 4 && length % 4 === 0 && length <= 0xffff ? lineKind(raw, at, lineEnd) : undefined;
    if (kind !== undefined) {
      const run = runAt(raw, at, lineEnd, kind);
      if ('bytes' in run) runs.push(run);
      at = run.end;
    } else at = lineEnd + 2;
  }
  return runs;
}

/** `raw` with its base64 runs decoded (the form above), in pieces to be put together by the caller. */
export function decodeBase64Runs(raw: Buffer): Buffer[] {
  const runs = findRuns(raw);
  const head = Buffer.alloc(4 + RUN_ENTRY_BYTES * runs.length);
  head.writeUInt32LE(runs.length, 0);
  const parts: Buffer[] = [head];
  let from = 0;
  for (const [i, run] of runs.entries()) {
    const entry = 4 + RUN_ENTRY_BYTES * i;
    head.writeUInt32LE(run.start - from, entry);
    head.writeUInt32LE(run.size, entry + 4);
    head.writeUInt16LE(run.lineLength, entry + 8);
    parts.push(raw.subarray(from, run.start), ...run.bytes);
    from = run.end;
  }
  parts.push(raw.subarray(from));
  return parts;
}

/** The source a decoded form was made of (decodeBase64Runs), byte for byte. */
export function encodeBase64Runs(decoded: Buffer): Buffer {
  const count = decoded.readUInt32LE(0);
  const parts: Buffer[] = [];
  let at = 4 + RUN_ENTRY_BYTES * count;
  for (let i = 0; i < count; i++) {
    const entry = 4 + RUN_ENTRY_BYTES * i;
    const gap = decoded.readUInt32LE(entry);
    const size = decoded.readUInt32LE(entry + 4);
    parts.push(decoded.subarray(at, at + gap));
    at += gap;
    parts.push(encodeRun(decoded.subarray(at, at + size), decoded.readUInt16LE(entry + 8)));
    at += size;
  }
  parts.push(decoded.subarray(at));
  return Buffer.concat(parts);
}
