import { describe, expect, it } from 'vitest';
import { readBounceReport } from '../../src/mail/bounce-report.js';

const report = (statusBlocks: string, headers = 'Message-ID: <orig@mailroom.test>\r\nSubject: hi\r\n') =>
  Buffer.from(
    [
      'From: MAILER-DAEMON@mx.example.com',
      'Message-ID: <report@mx.example.com>',
      'Content-Type: multipart/report;',
      '\treport-type="delivery-status"; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'Your message could not be delivered.',
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.com',
      '',
      statusBlocks,
      '--b',
      'Content-Type: text/rfc822-headers',
      '',
      headers,
      '--b--',
      '',
    ].join('\r\n'),
  );

describe('readBounceReport', () => {
  it('gives the recipients failed for good and the Message-ID of the returned message', () => {
    const blocks = [
      'Final-Recipient: rfc822; Gone@Example.com\r\nAction: failed\r\nStatus: 5.1.1',
      'Final-Recipient: rfc822; later@example.com\r\nAction: delayed\r\nStatus: 4.4.1',
      'Final-Recipient: rfc822; full@example.com\r\nAction: failed\r\nStatus: 4.2.2',
    ].join('\r\n\r\n');
    expect(readBounceReport(report(blocks))).toEqual({
      messageId: '<orig@mailroom.test>',
      failed: ['gone@example.com'],
    });
  });

  it('answers null for ordinary mail, a report with nothing failed for good, or one without the returned headers', () => {
    expect(
      readBounceReport(Buffer.from('From: a@b.c\r\nSubject: Action: failed\r\n\r\nStatus: 5.1.1\r\n')),
    ).toBeNull();
    expect(
      readBounceReport(report('Final-Recipient: rfc822; a@b.com\r\nAction: delivered\r\nStatus: 2.0.0')),
    ).toBeNull();
    expect(
      readBounceReport(
        report('Final-Recipient: rfc822; a@b.com\r\nAction: failed\r\nStatus: 5.1.1', 'Subject: hi\r\n'),
      ),
    ).toBeNull();
  });
});
