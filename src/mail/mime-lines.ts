/** One line of a latin1 string (line ending left out) and where it starts and where the next one starts. */
export interface Line {
  text: string;
  start: number;
  next: number;
}

interface Source {
  length: number;
  newlineFrom(at: number): number;
  isCr(at: number): boolean;
  text(start: number, end: number): string;
}

function* walk(source: Source, wanted: (start: number) => boolean = () => true): Generator<Line> {
  let start = 0;
  while (start < source.length) {
    let end = source.newlineFrom(start);
    const next = end < 0 ? source.length : end + 1;
    if (end < 0) end = source.length;
    if (!wanted(start)) {
      start = next;
      continue;
    }
    const text = source.text(start, end > start && source.isCr(end - 1) ? end - 1 : end);
    yield { text, start, next };
    start = next;
  }
}

/** Walks the lines of a latin1 string without building an array of them: one pass, linear. */
export function linesOf(source: string): Generator<Line> {
  return walk({
    length: source.length,
    newlineFrom: (at) => source.indexOf('\n', at),
    isCr: (at) => source[at] === '\r',
    text: (start, end) => source.slice(start, end),
  });
}

/**
 * linesOf for bytes, read as latin1 one line at a time: no string of the whole message is made.
 * Lines for which `wanted(start)` is false (asked as each line is reached) are skipped unread.
 */
export function linesOfBytes(source: Buffer, wanted?: (start: number) => boolean): Generator<Line> {
  return walk(
    {
      length: source.length,
      newlineFrom: (at) => source.indexOf(0x0a, at),
      isCr: (at) => source[at] === 0x0d,
      text: (start, end) => source.toString('latin1', start, end),
    },
    wanted,
  );
}

/** The marker of a `--marker` or `--marker--` line when it is one of `markers`, else null. */
export function boundaryOf(
  line: string,
  markers: ReadonlySet<string> | ReadonlyMap<string, unknown>,
): { marker: string; closing: boolean } | null {
  if (!line.startsWith('--')) return null;
  const text = line.slice(2).trimEnd();
  if (text.endsWith('--') && markers.has(text.slice(0, -2)))
    return { marker: text.slice(0, -2), closing: true };
  return markers.has(text) ? { marker: text, closing: false } : null;
}

const BOUNDARY_PARAM = /boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i;

/** The boundary of a multipart Content-Type value, or null. */
export function multipartBoundary(contentType: string): string | null {
  if (!/^\s*multipart\//i.test(contentType)) return null;
  const found = BOUNDARY_PARAM.exec(contentType);
  return found?.[1] ?? found?.[2] ?? null;
}
