import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { htmlToText } from '../../src/mail/html-text.js';
import { extractReplyHtml } from '../../src/mail/extract-reply-html.js';
import { extractReplyText } from '../../src/mail/extract-reply.js';
import { parseEmail } from '../../src/mail/parse.js';

const dir = new URL('../../fixtures/replies/', import.meta.url);
const names = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.eml'))
  .map((f) => f.slice(0, -4))
  .sort();
const read = (file: string) => fs.readFileSync(new URL(file, dir), 'utf8');
const expectedOf = (file: string) => (fs.existsSync(new URL(file, dir)) ? read(file).trimEnd() : undefined);
/** The words a reader sees in html, in order (line breaks are the renderer's, not the extraction's). */
const words = (text: string) => text.split(/\s+/).filter(Boolean).join(' ');
const shown = (html: string) => words(htmlToText(html));

describe('the new content of real-shaped replies (fixtures/replies)', () => {
  it('has at least 20 fixtures, plain and html, in at least four languages', () => {
    expect(names.length).toBeGreaterThanOrEqual(20);
    expect(names.filter((n) => fs.existsSync(new URL(`${n}.expected-html.txt`, dir))).length).toBeGreaterThan(
      5,
    );
    const languages = new Set(
      names.map((n) => n.split('-')[0]).filter((p) => /^(de|fr|es|nl|it|pt)$/.test(p!)),
    );
    expect(languages.size).toBeGreaterThanOrEqual(4);
  });

  for (const name of names) {
    it(name, async () => {
      const parsed = await parseEmail(Buffer.from(read(`${name}.eml`)));
      expect(extractReplyText(parsed.text)).toBe(expectedOf(`${name}.expected.txt`));
      const expectedHtml = expectedOf(`${name}.expected-html.txt`);
      if (expectedHtml !== undefined) expect(shown(extractReplyHtml(parsed.html))).toBe(words(expectedHtml));
    });
  }
});

describe('extractReplyText on its own', () => {
  it('keeps a message with nothing quoted as it is', () => {
    expect(extractReplyText('Hello\n\nOn second thought, the plan is fine.')).toBe(
      'Hello\n\nOn second thought, the plan is fine.',
    );
  });

  it('returns the text whole when it is all quote', () => {
    expect(extractReplyText('> only a quote\n> here')).toBe('> only a quote\n> here');
  });

  it('does not take a sentence starting with "Le" above the attribution for part of it', () => {
    const text =
      'Le rapport est prêt.\nLe mar. 3 mars 2026 à 10:02, Alice <\nalice@example.com> a écrit :\n> ok';
    expect(extractReplyText(text)).toBe('Le rapport est prêt.');
  });

  it('reads CRLF text', () => {
    expect(extractReplyText('Yes.\r\n\r\nOn Tue, Alice <a@example.com> wrote:\r\n> q\r\n')).toBe('Yes.');
  });
});

describe('extractReplyHtml on its own', () => {
  it('keeps html with nothing quoted as it is', () => {
    const html = '<p>Hello <b>there</b> &amp; welcome</p>';
    expect(extractReplyHtml(html)).toBe(html);
  });

  it('returns the html whole when nothing but the quote would be left', () => {
    const html = '<blockquote type="cite">all quoted</blockquote>';
    expect(extractReplyHtml(html)).toBe(html);
  });
});
