import crypto from 'node:crypto';
import { promisify } from 'node:util';

export interface DkimKeyPair {
  /** PKCS#8 PEM. */
  privateKey: string;
  /** SPKI PEM: what the domain's DKIM record publishes. */
  publicKey: string;
}

const generateKeyPair = promisify(crypto.generateKeyPair);

/** Keys shorter than this sign nothing a receiver still trusts. */
const MIN_BITS = 1024;

/** What a DKIM key given here must be (dkimKeyPairOf), as the setting and the verb say it. */
export const DKIM_KEY_RULE = `must be an RSA private key of ${MIN_BITS} bits or more, in PEM`;

/**
 * A new 2048-bit RSA key for a domain's DKIM signatures. Made on libuv's thread pool: its
 * 100-300 ms of CPU do not hold up the requests the process is serving meanwhile.
 */
export async function newDkimKeyPair(): Promise<DkimKeyPair> {
  return generateKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/**
 * The key pair of a private key given in PEM (PKCS#1 or PKCS#8), or null when it is not one DKIM
 * signs with here: RSA of MIN_BITS or more (rsa-sha256, what every receiver verifies).
 */
export function dkimKeyPairOf(pem: string): DkimKeyPair | null {
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey(pem);
  } catch {
    return null;
  }
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_BITS)
    return null;
  return {
    privateKey: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: crypto.createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString(),
  };
}
