/** One line of a latin1 string (line ending left out) and where it starts and where the next one starts. */
export interface Line {
  text: string;
  start: number;
  next: number;
}

/** Walks the lines of a latin1 string without building an array of them: one pass, linear. */
export function* linesOf(source: string): Generator<Line> {
  let start = 0;
  while (start < source.length) {
    let end = source.indexOf('\n', start);
    const next = end < 0 ? source.length : end + 1;
    if (end < 0) end = source.length;
    const text = source.slice(start, end > start && source[end - 1] === '\r' ? end - 1 : end);
    yield { text, start, next };
    start = next;
  }
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
