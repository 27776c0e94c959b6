import crypto from 'node:crypto';

/**
 * A maker of messages of `size` MB each (fractions allowed), most of it one base64 attachment of
 * random bytes in lines of 76; the attachment is made once and shared by every message.
 */
export function largeMessage(size: number, to = 'large@example.org'): (i: number) => string {
  const attachment = crypto.randomBytes(Math.floor((size * 1024 * 1024 * 3) / 4)).toString('base64');
  return (i) =>
    [
      'From: sender@example.com',
      `To: ${to}`,
      `Subject: Large ${i}`,
      `Message-ID: <large-${i}@example.com>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'see attached',
      '--b',
      'Content-Type: application/octet-stream; name="data.bin"',
      'Content-Transfer-Encoding: base64',
      '',
      attachment.replace(/.{76}/g, '$&\r\n'),
      '--b--',
      '',
    ].join('\r\n');
}
