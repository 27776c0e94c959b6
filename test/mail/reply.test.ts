import { describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import type { AddressObject, ParsedMail } from 'mailparser';
import { composeMessage } from '../../src/mail/compose.js';
import { forwardSubject, planForward, planReply, replySubject } from '../../src/mail/reply.js';
import type { ParsedAddress, ParsedEmail } from '../../src/mail/types.js';

const DATE = new Date('2026-11-21T10:00:00Z');
const SELF = 'agent@mail.example.org';

function a(address: string, name = ''): ParsedAddress {
  return { address, name };
}

function email(over: Partial<ParsedEmail> = {}): ParsedEmail {
  return {
    messageId: '<orig@example.com>',
    messageIdGenerated: false,
    from: a('alice@example.com', 'Alice Doe'),
    to: [a(SELF)],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: 'Project plan',
    date: DATE,
    text: 'Hello agent,\n\nplease review.\n',
    html: '',
    inReplyTo: null,
    references: [],
    attachments: [],
    headers: {},
    warnings: [],
    ...over,
  };
}

const base = {
  selfAddress: SELF,
  text: 'Thanks!',
  replyAll: false,
  includeOriginal: false,
  originalDate: DATE,
};

describe('subjects', () => {
  it.each([
    ['Hello', 'Re: Hello'],
    ['Re: Hello', 'Re: Hello'],
    ['RE: Hello', 'RE: Hello'],
    ['AW: Hello', 'AW: Hello'],
    ['SV: Hello', 'SV: Hello'],
    ['Re[2]: Hello', 'Re[2]: Hello'],
    ['回复：你好', '回复：你好'],
    ['Fwd: x', 'Re: Fwd: x'],
    ['Reference: x', 'Re: Reference: x'],
    ['', 'Re:'],
    // The prefixes threading knows (subject.ts) are the ones a reply recognises.
    ['RV: hola', 'Re: RV: hola'],
    ['Antwort: Hallo', 'Antwort: Hallo'],
    ['YNT: Merhaba', 'YNT: Merhaba'],
    ['RES: Olá', 'RES: Olá'],
    ['Réf : Bonjour', 'Réf : Bonjour'],
    ['答复：你好', '答复：你好'],
  ])('replySubject(%j) = %j', (input, expected) => {
    expect(replySubject(input)).toBe(expected);
  });

  it.each([
    ['Hello', 'Fwd: Hello'],
    ['Fwd: Hello', 'Fwd: Hello'],
    ['FW: Hello', 'FW: Hello'],
    ['WG: Hello', 'WG: Hello'],
    ['转发：你好', '转发：你好'],
    ['Re: x', 'Fwd: Re: x'],
    ['RV: hola', 'RV: hola'],
    ['ENC: Olá', 'ENC: Olá'],
  ])('forwardSubject(%j) = %j', (input, expected) => {
    expect(forwardSubject(input)).toBe(expected);
  });
});

describe('planReply recipients', () => {
  it('replies to From, or to Reply-To when present', () => {
    expect(planReply(email(), base)).toMatchObject({ to: ['alice@example.com'], cc: [] });
    const withReplyTo = email({ replyTo: [a('list@example.com'), a('bob@example.com')] });
    expect(planReply(withReplyTo, base).to).toEqual(['list@example.com', 'bob@example.com']);
  });

  it('reply-all adds To and Cc minus self (any case, +tag), without duplicates, To winning', () => {
    const original = email({
      from: a('alice@example.com'),
      to: [a('Agent@Mail.Example.org'), a('bob@example.com'), a('ALICE@example.com')],
      cc: [a('agent+inbox@mail.example.org'), a('carol@example.com'), a('BOB@example.com'), a('')],
    });
    const plan = planReply(original, { ...base, replyAll: true });
    expect(plan.to).toEqual(['alice@example.com']);
    expect(plan.cc).toEqual(['bob@example.com', 'carol@example.com']);
  });

  it('reply-all honours Reply-To for the To side', () => {
    const original = email({ replyTo: [a('desk@example.com')], to: [a(SELF), a('dan@example.com')] });
    const plan = planReply(original, { ...base, replyAll: true });
    expect(plan.to).toEqual(['desk@example.com']);
    expect(plan.cc).toEqual(['dan@example.com']);
  });

  it('plain reply ignores the other recipients; extraCc is added', () => {
    const original = email({ to: [a(SELF), a('dan@example.com')], cc: [a('erin@example.com')] });
    const plan = planReply(original, { ...base, extraCc: ['frank@example.com', 'ALICE@example.com'] });
    expect(plan.to).toEqual(['alice@example.com']);
    expect(plan.cc).toEqual(['frank@example.com']);
  });

  it("replying to one's own sent message goes to its recipients", () => {
    const sent = email({ from: a('Agent+x@mail.example.org'), to: [a('zed@example.com'), a(SELF)] });
    expect(planReply(sent, base).to).toEqual(['zed@example.com']);
    const toSelf = email({ from: a(SELF), to: [a(SELF)] });
    expect(planReply(toSelf, base).to).toEqual([SELF]);
  });
});

describe('planReply threading', () => {
  it('references = original references + original id, deduped', () => {
    const plan = planReply(email({ references: ['<r1@x>', '<r2@x>', '<orig@example.com>'] }), base);
    expect(plan.inReplyTo).toBe('<orig@example.com>');
    expect(plan.references).toEqual(['<r1@x>', '<r2@x>', '<orig@example.com>']);
  });

  it('falls back to In-Reply-To when the original has no References', () => {
    const plan = planReply(email({ inReplyTo: '<parent@x>' }), base);
    expect(plan.references).toEqual(['<parent@x>', '<orig@example.com>']);
  });
});

describe('planReply quoting', () => {
  it('returns the given bodies untouched without includeOriginal', () => {
    expect(planReply(email(), base)).toMatchObject({ text: 'Thanks!' });
    expect(planReply(email(), base).html).toBeUndefined();
    const htmlOnly = planReply(email(), { ...base, text: undefined, html: '<p>Hi</p>' });
    expect(htmlOnly.text).toBeUndefined();
    expect(htmlOnly.html).toBe('<p>Hi</p>');
  });

  it('quotes the original text under a "wrote:" line', () => {
    const plan = planReply(email({ text: 'line 1\n\n> older\nline 3\n' }), {
      ...base,
      includeOriginal: true,
    });
    expect(plan.text).toBe(
      'Thanks!\n\nOn Sat, 21 Nov 2026 10:00 +0000, Alice Doe <alice@example.com> wrote:\n' +
        '> line 1\n>\n> > older\n> line 3\n',
    );
  });

  it('quotes in html with a blockquote, escaping a text-only original', () => {
    const original = email({ text: 'Look: <script>alert("x")</script> & more\nsecond line' });
    const plan = planReply(original, { ...base, text: 'Fine <ok>\nbye', includeOriginal: true });
    expect(plan.html).toContain('<p>Fine &lt;ok&gt;<br>bye</p>');
    expect(plan.html).toContain(
      '<div>On Sat, 21 Nov 2026 10:00 +0000, Alice Doe &lt;alice@example.com&gt; wrote:</div>',
    );
    expect(plan.html).toContain(
      '<blockquote type="cite" style="margin:0 0 0 .8ex;border-left:1px solid #ccc;padding-left:1ex">',
    );
    expect(plan.html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more<br>second line',
    );
    expect(plan.html).not.toContain('<script>');
    expect(plan.html?.trim().endsWith('</blockquote>')).toBe(true);
  });

  it('quotes the body of an html original and derives text from html-only replies', () => {
    const original = email({
      html: '<html><head><title>t</title></head><body><p>Orig <b>html</b></p></body></html>',
    });
    const plan = planReply(original, {
      ...base,
      text: undefined,
      html: '<p>My <i>answer</i></p>',
      includeOriginal: true,
    });
    expect(plan.html).toMatch(
      /^<p>My <i>answer<\/i><\/p>[\s\S]*<blockquote[^>]*>\n<p>Orig <b>html<\/b><\/p>\n<\/blockquote>/,
    );
    expect(plan.html).not.toContain('<title>');
    expect(plan.text).toMatch(/^My answer\n\nOn .* wrote:\n> Hello agent,\n>\n> please review\.\n$/);
  });

  it('uses the bare address when the sender has no name', () => {
    const plan = planReply(email({ from: a('bob@example.com') }), { ...base, includeOriginal: true });
    expect(plan.text).toContain('On Sat, 21 Nov 2026 10:00 +0000, bob@example.com wrote:\n');
  });
});

describe('planForward', () => {
  const att = {
    id: 'a1',
    filename: 'report.pdf',
    contentType: 'application/pdf',
    size: 4,
    contentId: null,
    inline: false,
    content: Buffer.from([0, 255, 10, 13]),
  };
  const original = email({
    subject: 'Re: numbers',
    to: [a(SELF, 'Agent'), a('bob@example.com')],
    cc: [a('carol@example.com', 'Carol <C>')],
    text: 'The numbers\n> are in.\n',
    references: ['<r1@x>'],
    attachments: [att],
  });

  it('builds the forwarded-message block with the original unquoted', () => {
    const plan = planForward(original, { text: 'FYI', includeAttachments: true, originalDate: DATE });
    expect(plan.subject).toBe('Fwd: Re: numbers');
    expect(plan.inReplyTo).toBe('<orig@example.com>');
    expect(plan.references).toEqual(['<r1@x>', '<orig@example.com>']);
    expect(plan.text).toBe(
      'FYI\n\n---------- Forwarded message ---------\n' +
        'From: Alice Doe <alice@example.com>\nDate: Sat, 21 Nov 2026 10:00 +0000\nSubject: Re: numbers\n' +
        'To: Agent <agent@mail.example.org>, bob@example.com\nCc: Carol <C> <carol@example.com>\n\n' +
        'The numbers\n> are in.\n',
    );
    expect(plan.html).toContain('Cc: Carol &lt;C&gt; &lt;carol@example.com&gt;<br>');
    expect(plan.html).toContain('<p>The numbers<br>&gt; are in.</p>');
    expect(plan.attachments).toEqual([
      {
        filename: 'report.pdf',
        contentType: 'application/pdf',
        content: att.content,
        contentId: null,
        inline: false,
      },
    ]);
  });

  it('omits Cc when none, attachments when not wanted, and starts with the block without own text', () => {
    const plan = planForward(email(), { includeAttachments: false, originalDate: DATE });
    expect(plan.text.startsWith('---------- Forwarded message ---------\n')).toBe(true);
    expect(plan.text).not.toContain('Cc:');
    expect(plan.attachments).toEqual([]);
    expect(
      planForward(email({ subject: 'Fwd: x' }), { includeAttachments: true, originalDate: DATE }).subject,
    ).toBe('Fwd: x');
  });
});

function fromParsed(p: ParsedMail): ParsedEmail {
  const list = (v: AddressObject | AddressObject[] | undefined): ParsedAddress[] =>
    [v ?? []].flat().flatMap((o) => o.value.map((x) => a(x.address ?? '', x.name)));
  return email({
    messageId: p.messageId ?? '',
    from: list(p.from)[0] ?? null,
    to: list(p.to),
    cc: list(p.cc),
    replyTo: list(p.replyTo),
    subject: p.subject ?? '',
    date: p.date ?? null,
    text: p.text ?? '',
    html: p.html || '',
    inReplyTo: p.inReplyTo ?? null,
    references: [p.references ?? []].flat(),
    attachments: p.attachments.map((x, i) => ({
      id: `a${i + 1}`,
      filename: x.filename ?? '',
      contentType: x.contentType,
      size: x.size,
      contentId: x.contentId?.replace(/[<>]/g, '') ?? null,
      inline: x.contentDisposition === 'inline',
      content: x.content,
    })),
  });
}

describe('round trip through compose and mailparser', () => {
  it('threads a three-message chain', async () => {
    const m1 = await composeMessage({
      from: { address: 'alice@example.com', name: 'Alice' },
      to: [SELF],
      subject: 'Chain',
      text: 'first',
      messageIdDomain: 'example.com',
    });
    const p1 = fromParsed(await simpleParser(m1.raw));
    const r2 = planReply(p1, { ...base, text: 'second', includeOriginal: true });
    const m2 = await composeMessage({ from: { address: SELF }, ...r2, messageIdDomain: 'mail.example.org' });
    const p2 = fromParsed(await simpleParser(m2.raw));
    expect(p2.subject).toBe('Re: Chain');
    expect(p2.text).toContain('> first');

    const r3 = planReply(p2, {
      ...base,
      selfAddress: 'alice@example.com',
      text: 'third',
      includeOriginal: true,
    });
    expect(r3.to).toEqual([SELF]);
    const m3 = await composeMessage({
      from: { address: 'alice@example.com' },
      ...r3,
      messageIdDomain: 'example.com',
    });
    const p3 = await simpleParser(m3.raw);
    expect(p3.inReplyTo).toBe(m2.messageId);
    expect([p3.references ?? []].flat()).toEqual([m1.messageId, m2.messageId]);
    expect(p3.subject).toBe('Re: Chain');
    expect(p3.text).toContain('> > first');
    expect(p3.html).toContain('<blockquote');
  });

  it('forwards attachments byte-exact', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const m1 = await composeMessage({
      from: { address: 'alice@example.com' },
      to: [SELF],
      subject: 'Data',
      text: 'attached',
      attachments: [{ filename: 'all.bin', contentType: 'application/octet-stream', content: bytes }],
      messageIdDomain: 'example.com',
    });
    const fwd = planForward(fromParsed(await simpleParser(m1.raw)), {
      includeAttachments: true,
      originalDate: DATE,
    });
    const m2 = await composeMessage({
      from: { address: SELF },
      to: ['zed@example.com'],
      ...fwd,
      messageIdDomain: 'x.org',
    });
    const p2 = await simpleParser(m2.raw);
    expect(p2.subject).toBe('Fwd: Data');
    expect(p2.inReplyTo).toBe(m1.messageId);
    expect(p2.attachments[0]?.content.equals(bytes)).toBe(true);
  });
});
