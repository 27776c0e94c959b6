import type { DkimKey } from '../store/domains.js';

/**
 * Prepends a DKIM-Signature made with the domain's key (relaxed/relaxed, rsa-sha256). Signed at
 * each attempt, right before the message leaves, so the signature time is the sending time.
 *
 * The time is given (`signTime`): without it mailauth reads the clock twice, once for the header
 * it signs and once for the header it writes, rounded to the second, so a signing that spanned a
 * half-second mark carried a `t=` other than the one signed, and the signature failed at the
 * receiver ("bad signature"). Under load that was about one message in a hundred.
 */
export async function signWithDkim(raw: Buffer, key: DkimKey): Promise<Buffer> {
  // Loaded with the first message sent (see checkAuthentication).
  const { dkimSign } = await import('mailauth/lib/dkim/sign.js');
  const { signatures, errors } = (await dkimSign(raw, {
    canonicalization: 'relaxed/relaxed',
    algorithm: 'rsa-sha256',
    signTime: new Date(),
    signatureData: [{ signingDomain: key.domain, selector: key.selector, privateKey: key.privateKey }],
  } as never)) as { signatures: string; errors?: unknown[] | null };
  if (errors && errors.length > 0) throw new Error(`DKIM signing failed for ${key.domain}`);
  return Buffer.concat([Buffer.from(signatures, 'utf8'), raw]);
}
