import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEmail } from '../../src/mail/parse.js';

const fixture = (name: string): Buffer => fs.readFileSync(new URL(`../../fixtures/${name}`, import.meta.url));
const parseFixture = (name: string) => parseEmail(fixture(name));

function base64Part(raw: Buffer, filename: string): Buffer {
  const source = raw.toString('latin1');
  const start = source.indexOf('\r\n\r\n', source.indexOf(`filename="${filename}"`)) + 4;
  const end = source.indexOf('\r\n--', start);
  return Buffer.from(source.slice(start, end).replace(/\s+/g, ''), 'base64');
}

describe('parseEmail: well-formed messages', () => {
  it('reads a multipart/alternative message with addresses, threading headers and kept headers', async () => {
    const mail = await parseFixture('multipart-alternative.eml');
    expect(mail.messageId).toBe('<20240514091200.12345@example.com>');
    expect(mail.messageIdGenerated).toBe(false);
    expect(mail.subject).toBe('Quarterly report ready');
    expect(mail.date?.toISOString()).toBe('2024-05-14T09:12:00.000Z');
    expect(mail.from).toEqual({ address: 'alice@example.com', name: 'Alice Example' });
    expect(mail.to).toEqual([
      { address: 'bob@mailroom.test', name: 'Bob Builder' },
      { address: 'carol@mailroom.test', name: '' },
      { address: 'dave@mailroom.test', name: 'Dave D.' },
    ]);
    expect(mail.cc).toEqual([{ address: 'john.doe@example.org', name: 'Doe, John' }]);
    expect(mail.replyTo).toEqual([{ address: 'support@example.com', name: 'Alice Support' }]);
    expect(mail.bcc).toEqual([]);
    expect(mail.text).toBe(
      'Hi Bob,\n\nThe quarterly report is ready: https://reports.example.com/q2\n\nAlice\n',
    );
    expect(mail.html).toContain('<a href="https://reports.example.com/q2">Q2 report</a>');
    expect(mail.inReplyTo).toBeNull();
    expect(mail.references).toEqual([]);
    expect(mail.attachments).toEqual([]);
    expect(mail.warnings).toEqual([]);
    expect(mail.headers['list-id']).toBe('Reports <reports.example.com>');
    expect(mail.headers['x-mailer']).toBe('Apple Mail (2.3774.600.62)');
    expect(mail.headers['received']).toMatch(/^from mail\.example\.com .* by mx\.mailroom\.test /);
    expect(mail.headers['return-path']).toContain('alice@example.com');
    expect(mail.headers['authentication-results']).toContain('dkim=pass header.d=example.com');
    expect(mail.headers['content-type']).toMatch(/^multipart\/alternative;/);
    expect(mail.headers['subject']).toBeUndefined();
  });

  it('keeps attachments as Buffers with decoded sizes, lower-case types and fallback names', async () => {
    const raw = fixture('attachments.eml');
    const mail = await parseEmail(raw);
    expect(mail.text).toBe('Please find the invoice and the meeting notes attached.\n');
    expect(mail.attachments.map((a) => [a.id, a.filename, a.contentType])).toEqual([
      ['a1', 'INV-2024-0042.pdf', 'application/pdf'],
      ['a2', 'notes.txt', 'text/plain'],
      ['a3', 'attachment-3.json', 'application/json'],
    ]);
    const [pdf, notes, json] = mail.attachments;
    const pdfBytes = base64Part(raw, 'INV-2024-0042.pdf');
    expect(Buffer.isBuffer(pdf?.content)).toBe(true);
    expect(pdf?.size).toBe(pdfBytes.length);
    expect(pdf?.content.equals(pdfBytes)).toBe(true);
    expect(pdf?.content.subarray(0, 8).toString()).toBe('%PDF-1.4');
    expect(notes?.content.toString()).toBe('Meeting notes\r\n- budget approved\r\n- next review in June\r\n');
    expect(notes?.size).toBe(notes?.content.length);
    expect(JSON.parse(json?.content.toString() ?? '')).toEqual({ invoice: 'INV-2024-0042', total: 1234.5 });
    expect(mail.attachments.every((a) => !a.inline && a.contentId === null)).toBe(true);
  });

  it('gives the same attachment ids and bytes on every parse', async () => {
    const [first, second] = await Promise.all([
      parseFixture('attachments.eml'),
      parseFixture('attachments.eml'),
    ]);
    expect(second.attachments.map((a) => a.id)).toEqual(first.attachments.map((a) => a.id));
    second.attachments.forEach((a, i) => expect(a.content.equals(first.attachments[i]!.content)).toBe(true));
  });

  it('marks a cid-referenced image in multipart/related as inline and keeps the cid link in html', async () => {
    const raw = fixture('inline-image.eml');
    const mail = await parseEmail(raw);
    expect(mail.attachments).toHaveLength(1);
    const image = mail.attachments[0]!;
    expect(image).toMatchObject({
      id: 'a1',
      filename: 'logo.png',
      contentType: 'image/png',
      contentId: 'logo.png@shop.example.com',
      inline: true,
    });
    expect(image.size).toBe(base64Part(raw, 'logo.png').length);
    expect(image.content.subarray(1, 4).toString()).toBe('PNG');
    expect(mail.html).toContain('src="cid:logo.png@shop.example.com"');
    expect(mail.text).toBe('Here is our new logo.\n');
  });

  it('reads the three messages of a reply chain', async () => {
    const [one, two, three] = await Promise.all([1, 2, 3].map((n) => parseFixture(`reply-chain-${n}.eml`)));
    expect([one?.subject, two?.subject, three?.subject]).toEqual([
      'Project plan',
      'Re: Project plan',
      'RE: Re: Project plan',
    ]);
    expect(one).toMatchObject({ messageId: '<plan-1@example.com>', inReplyTo: null, references: [] });
    expect(two).toMatchObject({ inReplyTo: one?.messageId, references: [one?.messageId] });
    expect(three).toMatchObject({ inReplyTo: two?.messageId, references: [one?.messageId, two?.messageId] });
  });
});

describe('parseEmail: charsets and encodings', () => {
  it('decodes a quoted-printable ISO-8859-1 body and encoded-word headers', async () => {
    const mail = await parseFixture('iso-8859-1.eml');
    expect(mail.text).toContain('Grüße aus Köln, café und Straßenbahn');
    expect(mail.text).toContain('Wir sehen uns am Montag im Büro.');
    expect(mail.subject).toBe('Grüße aus Köln');
    expect(mail.from).toEqual({ address: 'juergen.mueller@example.de', name: 'Jürgen Müller' });
  });

  it('decodes windows-1252 curly quotes and the euro sign', async () => {
    const raw = fixture('windows-1252.eml');
    expect(raw.includes(Buffer.from([0x80, 0x34, 0x32]))).toBe(true);
    const mail = await parseEmail(raw);
    expect(mail.text).toContain('€42.50 – as “agreed”… it’s due Friday.');
    expect(mail.warnings).toEqual([]);
  });

  it('decodes a Shift_JIS body, subject and display name', async () => {
    const mail = await parseFixture('shift-jis.eml');
    expect(mail.text).toContain('お世話になっております。');
    expect(mail.text).toContain('資料の一覧表を送ります。');
    expect(mail.subject).toBe('会議の資料');
    expect(mail.from?.name).toBe('山田 太郎');
  });

  it('decodes a subject made of several encoded words, one character split across two', async () => {
    const mail = await parseFixture('encoded-word-subject.eml');
    expect(mail.subject).toBe('Déjà vu: 日本語 résumé café');
    expect(mail.from).toEqual({ address: 'zoe@example.se', name: 'Zoë Ångström' });
  });

  it('derives text from html when the message has only html', async () => {
    const mail = await parseFixture('html-only.eml');
    expect(mail.html).toContain('<h1>Summer sale</h1>');
    expect(mail.text).toMatch(/Everything is 20\s% off until Sunday\./);
    expect(mail.text).toContain('Café vouchers & more.');
    expect(mail.text).not.toMatch(/<|&amp;|color:red/);
  });

  it('derives text from html inside multipart/mixed without a text part', async () => {
    const raw = Buffer.from(
      'From: a@example.com\r\nSubject: x\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n' +
        '--b\r\nContent-Type: text/html\r\n\r\n<p>Hello <b>there</b></p>\r\n' +
        '--b\r\nContent-Type: application/pdf\r\n\r\n%PDF\r\n--b--\r\n',
    );
    const mail = await parseEmail(raw);
    expect(mail.text).toBe('Hello there');
    expect(mail.attachments[0]?.filename).toBe('attachment-1.pdf');
  });

  it('normalises CRLF to LF in text', async () => {
    const mail = await parseEmail(
      Buffer.from('From: a@example.com\r\nSubject: x\r\n\r\nline one\r\nline two\r\n'),
    );
    expect(mail.text).toBe('line one\nline two\n');
  });
});

describe('parseEmail: missing and odd headers', () => {
  it('synthesises a stable Message-ID and a null date when both are missing', async () => {
    const raw = fixture('no-message-id-no-date.eml');
    const [first, second] = await Promise.all([parseEmail(raw), parseEmail(Buffer.from(raw))]);
    expect(first.messageId).toMatch(/^<generated-[0-9a-f]{24}@mailroom\.invalid>$/);
    expect(first.messageIdGenerated).toBe(true);
    expect(second.messageId).toBe(first.messageId);
    expect(first.date).toBeNull();
    expect(first.subject).toBe('Nightly build finished');
    const other = await parseEmail(Buffer.concat([raw, Buffer.from('\r\n')]));
    expect(other.messageId).not.toBe(first.messageId);
  });

  it('returns null for an unparseable Date and says so', async () => {
    const mail = await parseEmail(
      Buffer.from('From: a@example.com\r\nDate: not a date\r\nSubject: x\r\n\r\nbody'),
    );
    expect(mail.date).toBeNull();
    expect(mail.warnings.join(' ')).toMatch(/Date/);
  });

  it('extracts Message-ID tokens from untidy In-Reply-To, References and Message-ID headers', async () => {
    const raw = Buffer.from(
      'From: a@example.com\r\nMessage-ID: abc@x.example\r\n' +
        'In-Reply-To: Your message of Tuesday <one@x.example> <two@x.example>\r\n' +
        'References: <r1@x.example> junk\r\n <r2@x.example>\r\nSubject: x\r\n\r\nbody',
    );
    const mail = await parseEmail(raw);
    expect(mail.messageId).toBe('<abc@x.example>');
    expect(mail.messageIdGenerated).toBe(false);
    expect(mail.inReplyTo).toBe('<one@x.example>');
    expect(mail.references).toEqual(['<r1@x.example>', '<r2@x.example>']);
  });
});

describe('parseEmail: broken input never throws', () => {
  it('keeps the readable part of a multipart with no closing boundary', async () => {
    const mail = await parseFixture('broken-no-closing-boundary.eml');
    expect(mail.subject).toBe('Truncated upload');
    expect(mail.from?.address).toBe('sender@example.net');
    expect(mail.text).toContain('This message was cut off in transit.');
    expect(mail.warnings.join(' ')).toMatch(/boundary "never-closed" is never closed/);
  });

  it('decodes an unknown charset as UTF-8 with a warning', async () => {
    const mail = await parseFixture('broken-unknown-charset.eml');
    expect(mail.subject).toBe('Strange charset');
    expect(mail.text).toBe('This body claims an unknown charset but is plain ASCII.\n');
    expect(mail.warnings.join(' ')).toMatch(/charset "x-unknown-foo"/);
  });

  it('keeps what it can of invalid base64 in a text part and an attachment', async () => {
    const mail = await parseFixture('broken-bad-base64.eml');
    expect(mail.subject).toBe('Bad base64 inside');
    expect(mail.from?.name).toBe('Broken Encoder');
    expect(mail.text).toContain('Hello, this text is readable');
    expect(mail.attachments.map((a) => a.filename)).toEqual(['data.bin']);
    expect(mail.attachments[0]?.size).toBe(mail.attachments[0]?.content.length);
    expect(mail.warnings.join(' ')).toMatch(/invalid base64 data in 2 MIME part/);
  });

  it('does not warn about a boundary that is only mentioned, never used', async () => {
    const raw = Buffer.from(
      'From: mailer-daemon@example.com\r\nSubject: Undelivered\r\nContent-Type: text/rfc822-headers\r\n\r\n' +
        'Content-Type: multipart/alternative; boundary="orig"\r\n',
    );
    expect((await parseEmail(raw)).warnings).toEqual([]);
  });

  it('accepts an empty buffer', async () => {
    const mail = await parseEmail(Buffer.alloc(0));
    expect(mail.messageIdGenerated).toBe(true);
    expect(mail).toMatchObject({ from: null, subject: '', text: '', html: '', attachments: [] });
    expect(mail.warnings.length).toBeGreaterThan(0);
  });

  it('accepts binary garbage', async () => {
    const mail = await parseEmail(Buffer.from([0, 1, 2, 255]));
    expect(mail.from).toBeNull();
    expect(mail.messageId).toMatch(/^<generated-/);
    expect(mail.warnings.join(' ')).toMatch(/no headers/);
  });

  it('keeps a message without headers as text', async () => {
    const mail = await parseEmail(Buffer.from('just some text\r\nover two lines'));
    expect(mail.text).toBe('just some text\nover two lines');
  });

  it('reads a message with a 1 MB header line in full, that field cut to 32 KB', async () => {
    const raw = Buffer.concat([
      Buffer.from('From: "Big" <big@Example.com>\r\nSubject: =?UTF-8?Q?caf=C3=A9?=\r\nX-Big: '),
      Buffer.alloc(1024 * 1024, 'a'),
      Buffer.from('\r\nMessage-ID: <big@example.com>\r\n\r\nstill a body\r\n'),
    ]);
    const mail = await parseEmail(raw);
    expect(mail.subject).toBe('café');
    expect(mail.from).toEqual({ address: 'big@example.com', name: 'Big' });
    expect(mail.messageId).toBe('<big@example.com>');
    expect(mail.text).toBe('still a body\n');
    expect(mail.warnings.join(' ')).toMatch(/1 header field\(s\) longer than 32768 bytes were cut/);
    expect(mail.warnings.join(' ')).not.toMatch(/MIME parsing failed/);
  });
});

/** A multipart/mixed message with `count` small base64 attachments named f0.bin, f1.bin ... */
function manyAttachments(count: number): Buffer {
  const lines = ['From: a@example.com', 'Subject: many', 'Content-Type: multipart/mixed; boundary="B"', ''];
  for (let i = 0; i < count; i++) {
    lines.push('--B', `Content-Type: application/octet-stream; name="f${i}.bin"`);
    lines.push('Content-Disposition: attachment', 'Content-Transfer-Encoding: base64', '', 'AAECAwQF');
  }
  return Buffer.from([...lines, '--B--', ''].join('\r\n'));
}

describe('parseEmail: hostile shapes are bounded, nothing silently lost', () => {
  it('keeps every attachment of a message with more than 1000 MIME parts', async () => {
    const mail = await parseEmail(manyAttachments(1200));
    expect(mail.attachments).toHaveLength(1200);
    expect(mail.attachments[1199]).toMatchObject({ id: 'a1200', filename: 'f1199.bin', size: 6 });
    expect(mail.warnings.join(' ')).not.toMatch(/MIME parsing failed/);
  });

  it('reads the first 5000 parts of a message with more and says the rest was not read', async () => {
    const mail = await parseEmail(manyAttachments(5100));
    expect(mail.subject).toBe('many');
    expect(mail.attachments).toHaveLength(5000);
    expect(mail.warnings).toContain('more than 5000 MIME parts; the rest of the message was not read');
  });

  it('reads a multipart nested 2,500 levels deep as MIME: the first 100 levels, the rest one attachment', async () => {
    // Each level: a text part, then a multipart holding the next level (none of them closed).
    const lines = ['From: a@example.com', 'Subject: deep', 'MIME-Version: 1.0'];
    lines.push('Content-Type: multipart/mixed; boundary="u0"', '');
    for (let i = 1; i <= 2500; i++) {
      lines.push(`--u${i - 1}`, 'Content-Type: text/plain', '', `level ${i}`);
      lines.push(`--u${i - 1}`, `Content-Type: multipart/mixed; boundary="u${i}"`, '');
    }
    const mail = await parseEmail(Buffer.from(lines.join('\r\n'), 'latin1'));
    expect(mail.warnings.join(' ')).not.toMatch(/MIME parsing failed/);
    expect(mail.warnings).toContain('1 multipart(s) nested deeper than 100 levels kept as attachments');
    expect(mail.text).toMatch(/^level 1\nlevel 2\n/);
    expect(mail.text).toContain('level 100');
    expect(mail.text).not.toContain('level 101');
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]!.contentType).toBe('multipart/mixed');
    expect(mail.attachments[0]!.content.toString('latin1')).toContain('level 2500');
  });

  it('keeps an attachment sent with a multipart/* content type, downloadable with its bytes', async () => {
    const zip = Buffer.from('PK\x03\x04 not really a zip', 'latin1');
    const raw = [
      'From: a@example.com',
      'Subject: zip',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="B"',
      '',
      '--B',
      'Content-Type: text/plain',
      '',
      'see attached',
      '--B',
      'Content-Type: multipart/x-zip; name=a.zip',
      'Content-Disposition: attachment; filename=a.zip',
      'Content-Transfer-Encoding: base64',
      '',
      zip.toString('base64'),
      '--B--',
      '',
    ].join('\r\n');
    const mail = await parseEmail(Buffer.from(raw));
    expect(mail.text.trim()).toBe('see attached');
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]).toMatchObject({
      id: 'a1',
      filename: 'a.zip',
      contentType: 'multipart/x-zip',
    });
    expect(mail.attachments[0]!.content.equals(zip)).toBe(true);
  });

  it('stores the first 100 addresses of a To and Cc and says how many there were', async () => {
    const to = Array.from({ length: 250 }, (_, i) => `"P ${i}" <p${i}@example.com>`).join(', ');
    const cc = Array.from({ length: 101 }, (_, i) => `c${i}@example.org`).join(', ');
    const mail = await parseEmail(Buffer.from(`From: a@example.com\r\nTo: ${to}\r\nCc: ${cc}\r\n\r\nhi\r\n`));
    expect(mail.to).toHaveLength(100);
    expect(mail.to[99]).toEqual({ address: 'p99@example.com', name: 'P 99' });
    expect(mail.cc).toHaveLength(100);
    expect(mail.warnings).toContain('To: 250 addresses, only the first 100 kept');
    expect(mail.warnings).toContain('Cc: 101 addresses, only the first 100 kept');
  });

  it('caps a To of 200,000 addresses without reading them all, and counts them', async () => {
    const to = Array.from({ length: 200_000 }, (_, i) => `p${i}@example.com`).join(',\r\n ');
    const mail = await parseEmail(
      Buffer.from(`From: a@example.com\r\nTo: ${to}\r\nSubject: big\r\n\r\nhi\r\n`),
    );
    expect(mail.subject).toBe('big');
    expect(mail.to).toHaveLength(100);
    expect(mail.to[0]!.address).toBe('p0@example.com');
    expect(mail.warnings).toContain('To: 200000 addresses, only the first 100 kept');
  });

  it('cuts a subject of many encoded-words to 998 characters', async () => {
    const subject = Array<string>(2000).fill('=?UTF-8?B?w6TDtsO8?=').join('\r\n ');
    const mail = await parseEmail(Buffer.from(`From: a@example.com\r\nSubject: ${subject}\r\n\r\nhi\r\n`));
    expect(mail.subject).toHaveLength(998);
    expect(mail.subject.startsWith('äöüäöü')).toBe(true);
    expect(mail.warnings.join(' ')).toMatch(/subject of \d+ characters cut to 998/);
  });
});

describe('parseEmail: bounding leaves ordinary large parts alone', () => {
  it('keeps a 400 KB base64 message/rfc822 attachment byte for byte', async () => {
    const inner = Buffer.from(
      `From: x@example.com\r\nSubject: inner\r\n\r\n${'body line\r\n'.repeat(40_000)}`,
    );
    const raw = [
      'From: a@example.com',
      'Subject: forwarded',
      'Content-Type: multipart/mixed; boundary="B"',
      '',
      '--B',
      'Content-Type: text/plain',
      '',
      'see the attached message',
      '--B',
      'Content-Type: message/rfc822; name="inner.eml"',
      'Content-Disposition: attachment; filename="inner.eml"',
      'Content-Transfer-Encoding: base64',
      '',
      inner.toString('base64').replace(/.{76}/g, '$&\r\n'),
      '--B--',
      '',
    ].join('\r\n');
    const mail = await parseEmail(Buffer.from(raw));
    expect(mail.warnings).toEqual([]);
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]!.content.equals(inner)).toBe(true);
  });
});
