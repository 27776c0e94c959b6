import { describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { composeDsn, enhancedStatus, headerBlock, rfc5322Date } from '../../src/mail/dsn.js';
import type { DsnInput } from '../../src/mail/dsn.js';
import { parseEmail } from '../../src/mail/parse.js';

const SENT = new Date('2026-11-21T10:00:00Z');
const FAILED = new Date('2026-11-21T10:05:00Z');

const originalRaw = [
  'From: Agent <agent@mailroom.test>',
  'To: gone@example.com, fine@example.com',
  'Subject: Quarterly report',
  'Message-ID: <orig-1@mailroom.test>',
  'Date: Sat, 21 Nov 2026 10:00:00 +0000',
  '',
  'Secret body text that must not be echoed back.',
  '',
].join('\r\n');

function input(over: Partial<DsnInput> = {}): DsnInput {
  return {
    reportingMta: 'mx.mailroom.test',
    domain: 'Mailroom.test',
    to: 'agent@mailroom.test',
    original: {
      headers: headerBlock(originalRaw),
      messageId: '<orig-1@mailroom.test>',
      subject: 'Quarterly report',
      arrivalDate: SENT,
    },
    recipients: [
      {
        recipient: 'gone@example.com',
        status: '5.1.1',
        diagnostic: '550 5.1.1 <gone@example.com>: no such user',
        remoteMta: 'relay.example.net',
        lastAttempt: FAILED,
      },
    ],
    date: FAILED,
    messageId: '<dsn-1@mailroom.test>',
    ...over,
  };
}

/** The MIME parts of a multipart body, split on its boundary. */
function partsOf(raw: string): string[] {
  const boundary = /boundary="([^"]+)"/.exec(raw)?.[1];
  if (!boundary) throw new Error('no boundary');
  return raw
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((p) => p.replace(/^\r\n/, ''));
}

describe('composeDsn (RFC 3464 delivery status notification)', () => {
  it('is a multipart/report from MAILER-DAEMON of the sender domain, threaded to the original', async () => {
    const { raw, messageId } = composeDsn(input());
    expect(messageId).toBe('<dsn-1@mailroom.test>');
    const text = raw.toString('utf8');
    expect(text).toMatch(/^Return-Path: <>\r\n/);
    expect(text).toMatch(/\r\nContent-Type: multipart\/report; report-type=delivery-status; boundary="/);
    const parsed = await simpleParser(raw);
    expect(parsed.from?.value[0]).toEqual({
      name: 'Mail Delivery System',
      address: 'MAILER-DAEMON@mailroom.test',
    });
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value[0]?.address : null).toBe(
      'agent@mailroom.test',
    );
    expect(parsed.subject).toBe('Undelivered Mail Returned to Sender');
    expect(parsed.inReplyTo).toBe('<orig-1@mailroom.test>');
    expect(parsed.references).toBe('<orig-1@mailroom.test>');
    expect(parsed.headers.get('auto-submitted')).toBe('auto-replied');
    expect(parsed.date?.toISOString()).toBe(FAILED.toISOString());
  });

  it('has three parts: human text, message/delivery-status, text/rfc822-headers', () => {
    const parts = partsOf(composeDsn(input()).raw.toString('utf8'));
    expect(parts).toHaveLength(3);
    expect(parts[0]).toMatch(/^Content-Type: text\/plain; charset=us-ascii/);
    expect(parts[0]).toContain('<gone@example.com>: 550 5.1.1 <gone@example.com>: no such user');
    expect(parts[0]).toContain('Subject: Quarterly report');
    expect(parts[1]).toMatch(/^Content-Type: message\/delivery-status\r\n\r\n/);
    expect(parts[2]).toMatch(/^Content-Type: text\/rfc822-headers/);
    expect(parts[2]).toContain('Message-ID: <orig-1@mailroom.test>');
    expect(parts[2]).not.toContain('Secret body text');
  });

  it('writes the per-message and per-recipient fields', () => {
    const status = partsOf(composeDsn(input()).raw.toString('utf8'))[1]!;
    const [perMessage, perRecipient] = status.split('\r\n\r\n').slice(1);
    expect(perMessage).toBe(
      [
        'Reporting-MTA: dns; mx.mailroom.test',
        'Original-Envelope-Id: <orig-1@mailroom.test>',
        'Arrival-Date: Sat, 21 Nov 2026 10:00:00 +0000',
      ].join('\r\n'),
    );
    expect(perRecipient).toBe(
      [
        'Final-Recipient: rfc822; gone@example.com',
        'Action: failed',
        'Status: 5.1.1',
        'Remote-MTA: dns; relay.example.net',
        'Diagnostic-Code: smtp; 550 5.1.1 <gone@example.com>: no such user',
        'Last-Attempt-Date: Sat, 21 Nov 2026 10:05:00 +0000',
      ].join('\r\n'),
    );
  });

  it('lists several recipients, and keeps delivery-status fields single-line ASCII', () => {
    const raw = composeDsn(
      input({
        recipients: [
          {
            recipient: 'a@example.com',
            status: '5.7.1',
            diagnostic: '550 5.7.1 rejected\r\nBcc: injected ünïcode',
            remoteMta: null,
            lastAttempt: FAILED,
          },
          {
            recipient: 'b@example.com',
            status: '4.4.7',
            diagnostic: 'gave up after 12 attempts: 451 try later',
            remoteMta: null,
            lastAttempt: FAILED,
          },
        ],
      }),
    ).raw.toString('utf8');
    const status = partsOf(raw)[1]!;
    expect(status).toContain('Final-Recipient: rfc822; a@example.com');
    expect(status).toContain('Final-Recipient: rfc822; b@example.com\r\nAction: failed\r\nStatus: 4.4.7');
    expect(status).toContain('Diagnostic-Code: smtp; 550 5.7.1 rejected Bcc: injected ?n?code');
    expect(status).not.toContain('Remote-MTA');
    expect(status).not.toMatch(/\r\nBcc:/);
  });

  it('encodes a non-ASCII human part as UTF-8 base64, and the parser reads it back', async () => {
    const raw = composeDsn(
      input({ original: { ...input().original, subject: 'Rapport trimestriel — été' } }),
    ).raw;
    expect(partsOf(raw.toString('utf8'))[0]).toMatch(/charset=utf-8\r\nContent-Transfer-Encoding: base64/);
    const parsed = await parseEmail(raw);
    expect(parsed.text).toContain('Rapport trimestriel — été');
    expect(parsed.text).toContain('gone@example.com');
    expect(parsed.inReplyTo).toBe('<orig-1@mailroom.test>');
    expect(parsed.warnings).toEqual([]);
  });

  it('refuses a report without recipients', () => {
    expect(() => composeDsn(input({ recipients: [] }))).toThrow(/recipient/);
  });

  it('leaves threading headers out when the original id is not a valid Message-ID', () => {
    const raw = composeDsn(input({ original: { ...input().original, messageId: 'garbage' } })).raw.toString();
    expect(raw).not.toMatch(/^In-Reply-To:/im);
  });
});

describe('DSN helpers', () => {
  it.each([
    ['550 5.1.1 <x@y>: user unknown', true, '5.1.1'],
    ['552-5.2.2 mailbox full', true, '5.2.2'],
    ['550 no such user', true, '5.0.0'],
    ['451 4.7.1 greylisted', true, '5.0.0'],
    ['451 4.7.1 greylisted', false, '4.7.1'],
    ['ECONNREFUSED', false, '4.0.0'],
  ])('enhancedStatus(%j, permanent=%s) = %s', (reply, permanent, expected) => {
    expect(enhancedStatus(reply, permanent)).toBe(expected);
  });

  it('headerBlock stops at the first empty line and uses CRLF', () => {
    expect(headerBlock('A: 1\nB: 2\n\nbody\n')).toBe('A: 1\r\nB: 2\r\n');
    expect(headerBlock(Buffer.from('A: 1\r\n\r\nbody'))).toBe('A: 1\r\n');
  });

  it('rfc5322Date is UTC with a numeric zone', () => {
    expect(rfc5322Date(SENT)).toBe('Sat, 21 Nov 2026 10:00:00 +0000');
  });
});
