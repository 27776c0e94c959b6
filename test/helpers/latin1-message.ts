/** A message from an old mailer: raw 8-bit Latin-1 in its headers, no encoded words. */
export function latin1Message(to: string, contentType: string): Buffer {
  return Buffer.from(
    [
      'From: Ren\xe9 M\xfcller <rene@example.com>',
      `To: ${to}`,
      'Subject: Caf\xe9 cr\xe8me \xe0 la fran\xe7aise',
      'Message-ID: <latin1@example.com>',
      'Date: Mon, 02 Mar 2026 10:00:00 +0000',
      'MIME-Version: 1.0',
      `Content-Type: ${contentType}`,
      'Content-Transfer-Encoding: 8bit',
      '',
      'Voil\xe0.',
      '',
    ].join('\r\n'),
    'latin1',
  );
}
