/**
 * Messages built to make a MIME parser work hard, each scaled by `n` (roughly linear in bytes).
 * Shared by the parse-growth test and the end-to-end test of a server under a hostile parse.
 */

const HEAD = [
  'From: attacker@example.com',
  'To: victim@mailroom.test',
  'Subject: hostile',
  'MIME-Version: 1.0',
];
const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'), 'latin1');

export const hostileShapes: Record<string, (n: number) => Buffer> = {
  /** The line that made the old diagnosis rescan the rest of the message once per match. */
  repeatedBase64Header: (n) =>
    crlf([
      ...HEAD,
      'Content-Type: text/plain',
      '',
      ...Array<string>(n * 400).fill('Content-Transfer-Encoding: base64\r\n'),
    ]),

  manyParts: (n) => {
    const parts: string[] = [];
    for (let i = 0; i < n * 60; i++) {
      parts.push('--B', `Content-Type: application/octet-stream; name="f${i}.bin"`);
      parts.push('Content-Disposition: attachment', 'Content-Transfer-Encoding: base64', '', 'AAECAwQF');
    }
    return crlf([...HEAD, 'Content-Type: multipart/mixed; boundary="B"', '', ...parts, '--B--', '']);
  },

  deepNesting: (n) => {
    const depth = n * 40;
    const lines: string[] = [...HEAD, 'Content-Type: multipart/mixed; boundary="b0"', ''];
    for (let i = 1; i <= depth; i++)
      lines.push(`--b${i - 1}`, `Content-Type: multipart/mixed; boundary="b${i}"`, '');
    lines.push(`--b${depth}`, 'Content-Type: text/plain', '', 'deep');
    for (let i = depth; i >= 0; i--) lines.push(`--b${i}--`);
    return crlf(lines);
  },

  foldedHeaders: (n) => {
    const headers: string[] = [];
    for (let i = 0; i < n * 40; i++)
      headers.push(`X-Folded-${i}: start`, ...Array<string>(20).fill('\tcontinued'));
    return crlf([...HEAD, ...headers, '', 'body']);
  },

  hugeAddressList: (n) => {
    const to = Array.from({ length: n * 800 }, (_, i) => `"Person ${i}" <p${i}@example.com>`).join(',\r\n ');
    const cc = Array.from({ length: n * 800 }, (_, i) => `c${i}@example.org`).join(', ');
    return crlf(['From: attacker@example.com', `To: ${to}`, `Cc: ${cc}`, 'Subject: many', '', 'body']);
  },

  encodedWordSubject: (n) =>
    crlf([
      'From: attacker@example.com',
      `Subject: ${Array<string>(n * 400)
        .fill('=?UTF-8?B?w6TDtsO8?=')
        .join('\r\n ')}`,
      '',
      'body',
    ]),

  htmlUnclosedTags: (n) =>
    crlf([
      ...HEAD,
      'Content-Type: text/html; charset=utf-8',
      '',
      `<html><body>${'<div><b><i><span title="x">text '.repeat(n * 4000)}`,
    ]),

  longLine: (n) => crlf([...HEAD, 'Content-Type: text/plain', '', 'x'.repeat(n * 256_000)]),

  unclosedBoundaries: (n) => {
    const lines: string[] = [...HEAD, 'Content-Type: multipart/mixed; boundary="u0"', ''];
    for (let i = 1; i <= n * 40; i++) {
      lines.push(`--u${i - 1}`, `Content-Type: multipart/alternative; boundary="u${i}"`, '');
      lines.push(`--u${i}`, 'Content-Type: text/plain', '', `part ${i}`);
    }
    return crlf(lines);
  },

  /** Screening: a long run of invisible tag characters (each one a surrogate pair). */
  tagCharacters: (n) =>
    Buffer.from(
      [
        ...HEAD,
        'Content-Type: text/plain; charset=utf-8',
        '',
        `hi${String.fromCodePoint(0xe0041).repeat(n * 20_000)}`,
      ].join('\r\n'),
    ),

  /** Screening: many style rules and many elements, each matched against the sheet. */
  manyStyleRules: (n) => {
    const rules = Array.from({ length: n * 100 }, (_, i) => `.c${i}{color:#${(i % 900) + 100}}`).join('');
    const body = Array.from(
      { length: n * 1500 },
      (_, i) => `<p class="c${i % 50} x" style="font-size:12px">t ${i}</p>`,
    );
    return crlf([...HEAD, 'Content-Type: text/html', '', `<style>${rules}</style>`, ...body]);
  },

  /** Screening: a link whose text looks like one endless host name. */
  hostLikeLinkText: (n) =>
    crlf([
      ...HEAD,
      'Content-Type: text/html',
      '',
      `<a href="https://example.com/">${'a.'.repeat(n * 40_000)}!</a>`,
    ]),

  /** Screening: zero-width characters between letters, a long run and many short ones. */
  zeroWidthRuns: (n) =>
    Buffer.from(
      [
        ...HEAD,
        'Content-Type: text/plain; charset=utf-8',
        '',
        `a${'\u200b'.repeat(n * 40_000)}b ${'x\u200by'.repeat(n * 20_000)}`,
      ].join('\r\n'),
    ),
};
