import { describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import type { AddressObject } from 'mailparser';
import {
  checkExtraHeaders,
  composeMessage,
  newMessageId,
  STRUCTURAL_HEADERS,
  type ComposeInput,
} from '../../src/mail/compose.js';
import { htmlToText } from '../../src/mail/html-text.js';

const DATE = new Date('2026-11-21T10:00:00Z');

function input(over: Partial<ComposeInput> = {}): ComposeInput {
  return {
    from: { address: 'agent@mail.example.org', name: 'Agent Smith' },
    to: ['alice@example.com'],
    subject: 'Hello',
    text: 'Hi Alice',
    messageIdDomain: 'mail.example.org',
    date: DATE,
    ...over,
  };
}

function addrs(a: AddressObject | AddressObject[] | undefined): string[] {
  return [a ?? []].flat().flatMap((o) => o.value.map((v) => v.address ?? ''));
}

function headerBlock(raw: Buffer): string {
  const s = raw.toString('latin1');
  return s.slice(0, s.indexOf('\r\n\r\n'));
}

describe('composeMessage headers and envelope', () => {
  it('writes From, To, Cc, Message-ID and Date but no Bcc header; bcc goes in the envelope', async () => {
    const m = await composeMessage(
      input({
        to: ['alice@example.com', 'Bob <bob@example.com>'],
        cc: ['carol@example.com', 'ALICE@example.com'],
        bcc: ['secret@hidden.example', 'Bob@Example.com'],
        replyTo: ['replies@mail.example.org'],
      }),
    );
    const head = headerBlock(m.raw);
    expect(head).not.toMatch(/^bcc:/im);
    expect(m.raw.toString('latin1')).not.toContain('secret@hidden.example');
    expect(m.envelope).toEqual({
      from: 'agent@mail.example.org',
      to: ['alice@example.com', 'bob@example.com', 'carol@example.com', 'secret@hidden.example'],
    });

    const p = await simpleParser(m.raw);
    expect(p.from?.value[0]).toEqual({ address: 'agent@mail.example.org', name: 'Agent Smith' });
    expect(addrs(p.to)).toEqual(['alice@example.com', 'bob@example.com']);
    expect(addrs(p.cc)).toEqual(['carol@example.com', 'ALICE@example.com']);
    expect(p.bcc).toBeUndefined();
    expect(addrs(p.replyTo)).toEqual(['replies@mail.example.org']);
    expect(p.messageId).toBe(m.messageId);
    expect(m.messageId).toMatch(/^<[A-Za-z0-9_-]{24,}@mail\.example\.org>$/);
    expect(p.date?.toISOString()).toBe(DATE.toISOString());
    expect(m.date).toBe(DATE);
    expect(p.subject).toBe('Hello');
  });

  it('uses a preset Message-ID and defaults the date to now', async () => {
    const before = Date.now();
    const m = await composeMessage(input({ messageId: '<preset-1@mail.example.org>', date: undefined }));
    expect(m.messageId).toBe('<preset-1@mail.example.org>');
    expect(m.date.getTime()).toBeGreaterThanOrEqual(before);
    const p = await simpleParser(m.raw);
    expect(p.messageId).toBe('<preset-1@mail.example.org>');
  });

  it('writes In-Reply-To and References when given', async () => {
    const m = await composeMessage(
      input({ inReplyTo: '<b@x.example>', references: ['<a@x.example>', '<b@x.example>'] }),
    );
    const p = await simpleParser(m.raw);
    expect(p.inReplyTo).toBe('<b@x.example>');
    expect(p.references).toEqual(['<a@x.example>', '<b@x.example>']);
  });

  it('omits threading headers when not given', async () => {
    const head = headerBlock((await composeMessage(input({ inReplyTo: null }))).raw);
    expect(head).not.toMatch(/^(in-reply-to|references):/im);
  });

  it('encodes a non-ASCII subject and display name', async () => {
    const m = await composeMessage(
      input({ subject: 'Grüße – 回复', from: { address: 'a@x.example', name: 'Zoë' } }),
    );
    const p = await simpleParser(m.raw);
    expect(p.subject).toBe('Grüße – 回复');
    expect(p.from?.value[0]?.name).toBe('Zoë');
  });

  it('refuses a message without recipients', async () => {
    await expect(composeMessage(input({ to: [] }))).rejects.toThrow(/recipient/);
  });
});

describe('composeMessage bodies', () => {
  it('sends text and html as alternatives when both are given', async () => {
    const m = await composeMessage(input({ text: 'plain body', html: '<p>html <b>body</b></p>' }));
    expect(headerBlock(m.raw)).toMatch(/multipart\/alternative/i);
    const p = await simpleParser(m.raw);
    expect(p.text?.trim()).toBe('plain body');
    expect(p.html).toContain('<p>html <b>body</b></p>');
  });

  it('sends text only when only text is given', async () => {
    const m = await composeMessage(input({ text: 'just text\nline two' }));
    expect(m.raw.toString()).not.toMatch(/text\/html/i);
    const p = await simpleParser(m.raw);
    expect(p.text?.trim()).toBe('just text\nline two');
    expect(p.html).toBe(false);
  });

  it('adds a text alternative derived from the html when only html is given', async () => {
    const html =
      '<html><head><style>p{}</style></head><body><p>Hello &amp; welcome</p><p>Line<br>two</p></body></html>';
    const m = await composeMessage(input({ text: undefined, html }));
    const p = await simpleParser(m.raw);
    expect(p.text?.trim()).toBe('Hello & welcome\n\nLine\ntwo');
    expect(p.html).toContain('<p>Hello &amp; welcome</p>');
  });

  it('htmlToText strips scripts, tags and decodes entities', () => {
    expect(
      htmlToText('<script>alert(1)</script><div>a &lt;b&gt; &#233;&#x263A;</div><ul><li>x</li></ul>'),
    ).toBe('a <b> é☺\n- x');
  });

  it('keeps the address of every link in the text alternative', async () => {
    const html =
      '<p>Read <a href="https://example.com/report?id=7">the report</a> or ' +
      '<a href="https://example.com/">https://example.com/</a>.</p><h2>Next steps</h2>';
    expect(htmlToText(html)).toBe(
      'Read the report [https://example.com/report?id=7] or https://example.com/.\n\nNext steps',
    );
    const p = await simpleParser((await composeMessage(input({ text: undefined, html }))).raw);
    expect(p.text).toContain('https://example.com/report?id=7');
  });

  it('turns markup nested past 1,000 levels into text without html-to-text', () => {
    const html = `${'<b>'.repeat(5000)}deep <a href="https://x.example/">link</a>${'</b>'.repeat(5000)}`;
    expect(htmlToText(html)).toBe('deep link');
  });

  it('htmlToText keeps an entity it does not know as written, names of Object.prototype included', () => {
    expect(htmlToText('<p>a &constructor; b &toString; c &amp;</p>')).toBe(
      'a &constructor; b &toString; c &',
    );
  });
});

describe('composeMessage attachments', () => {
  const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const textBytes = Buffer.from('line one\nline two\r\nno newline at end ü', 'utf8');
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

  it('round-trips attachments byte-exact', async () => {
    const m = await composeMessage(
      input({
        html: '<p>see <img src="cid:logo@x"></p>',
        attachments: [
          { filename: 'all-bytes.bin', contentType: 'application/octet-stream', content: allBytes },
          { filename: 'notes – ü.txt', contentType: 'text/plain', content: textBytes },
          { filename: 'logo.png', contentType: 'image/png', content: png, contentId: 'logo@x', inline: true },
        ],
      }),
    );
    const p = await simpleParser(m.raw);
    const byName = new Map(p.attachments.map((a) => [a.filename, a]));
    expect([...byName.keys()].sort()).toEqual(['all-bytes.bin', 'logo.png', 'notes – ü.txt']);
    expect(byName.get('all-bytes.bin')?.content.equals(allBytes)).toBe(true);
    expect(byName.get('notes – ü.txt')?.content.equals(textBytes)).toBe(true);
    const logo = byName.get('logo.png');
    expect(logo?.content.equals(png)).toBe(true);
    expect(logo?.contentId).toBe('<logo@x>');
    expect(logo?.contentDisposition).toBe('inline');
    expect(byName.get('all-bytes.bin')?.contentDisposition).toBe('attachment');
    expect(p.text?.trim()).toBe('Hi Alice');
  });

  it('carries a single attachment with a text body', async () => {
    const m = await composeMessage(
      input({
        attachments: [{ filename: 'a.bin', contentType: 'application/octet-stream', content: allBytes }],
      }),
    );
    const p = await simpleParser(m.raw);
    expect(p.attachments).toHaveLength(1);
    expect(p.attachments[0]?.content.equals(allBytes)).toBe(true);
    expect(p.text?.trim()).toBe('Hi Alice');
  });
});

describe('extra headers', () => {
  it('writes extra headers, MIME-encoding non-ASCII values', async () => {
    const m = await composeMessage(input({ headers: { 'X-Agent-Id': 'agent-42', 'X-Note': 'café' } }));
    const p = await simpleParser(m.raw);
    expect(p.headers.get('x-agent-id')).toBe('agent-42');
    expect(p.headers.get('x-note')).toBe('=?UTF-8?Q?caf=C3=A9?=');
  });

  it('refuses every structural header, in any case', () => {
    for (const name of STRUCTURAL_HEADERS) {
      expect(checkExtraHeaders({ [name]: 'x' })).toContain(name);
      const upper = name.toUpperCase();
      expect(checkExtraHeaders({ 'X-Ok': 'fine', [upper]: 'x' })).toContain(upper);
    }
    expect(STRUCTURAL_HEADERS.size).toBe(17);
  });

  it('refuses invalid field names and CR/LF in values', () => {
    expect(checkExtraHeaders({ 'X-Evil': 'x\r\nBcc: evil@x' })).toMatch(/X-Evil/);
    expect(checkExtraHeaders({ 'X-Evil': 'x\nBcc: evil@x' })).toMatch(/X-Evil/);
    expect(checkExtraHeaders({ 'X-Evil': 'x\rBcc: evil@x' })).toMatch(/X-Evil/);
    for (const bad of ['', 'Bad Name', 'a:b', 'X-É', 'X\tTab', 'X-Evil\r\nBcc']) {
      expect(checkExtraHeaders({ [bad]: 'v' })).toMatch(/invalid header name/);
    }
  });

  it('accepts ordinary extra headers', () => {
    expect(checkExtraHeaders({})).toBeNull();
    expect(
      checkExtraHeaders({ 'X-Agent-Id': 'a', 'List-Unsubscribe': '<mailto:u@x>', 'X-Empty': '' }),
    ).toBeNull();
  });

  it('composeMessage refuses structural and injected headers', async () => {
    await expect(composeMessage(input({ headers: { Bcc: 'evil@x' } }))).rejects.toThrow(/Bcc/);
    await expect(composeMessage(input({ headers: { 'X-A': 'x\r\nBcc: evil@x' } }))).rejects.toThrow(/X-A/);
  });
});

describe('newMessageId', () => {
  it('is random, url-safe and on the given domain', () => {
    const a = newMessageId('Mail.Example.org');
    const b = newMessageId('mail.example.org');
    expect(a).toMatch(/^<[A-Za-z0-9_-]{24,}@mail\.example\.org>$/);
    expect(a).not.toBe(b);
  });
});
