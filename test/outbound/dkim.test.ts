import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signWithDkim } from '../../src/outbound/dkim.js';
import { dkimResults } from '../helpers/dkim.js';

const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const domain = {
  name: 'mailroom.test',
  dkim_selector: 'mr202611',
  dkim_public_key: publicKey,
  created_at: '',
};
const key = { domain: domain.name, selector: domain.dkim_selector, privateKey };
const raw = Buffer.from(
  'From: Agent <agent@mailroom.test>\r\nTo: someone@example.com\r\nSubject: Signed\r\n' +
    'Date: Fri, 27 Nov 2026 03:00:00 +0000\r\nMessage-ID: <dkim-clock@mailroom.test>\r\n\r\nhello\r\n',
);

describe('DKIM signing', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('verifies at the receiver', async () => {
    const [result] = await dkimResults(await signWithDkim(raw, key), domain, 'agent@mailroom.test');
    expect(result?.status?.result).toBe('pass');
  });

  // A signing that spans a half-second mark: each read of the clock is 0.6 s later than the one
  // before. mailauth read it once for the signed header and once for the written one, so the
  // written t= was a second off the signed one and the signature failed (seen as a rare
  // "bad signature" when the machine was busy).
  it('still verifies when the clock passes a half-second mark while signing', async () => {
    let now = Date.UTC(2026, 10, 27, 3, 0, 0, 400);
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => (now += 600));
    const signed = await signWithDkim(raw, key);
    vi.spyOn(Date, 'now').mockImplementation(realNow);
    const [result] = await dkimResults(signed, domain, 'agent@mailroom.test');
    expect(result?.status?.result, JSON.stringify(result?.status)).toBe('pass');
  });
});
