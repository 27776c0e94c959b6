import crypto from 'node:crypto';

/**
 * Secrets at rest (contract 9): AES-256-GCM under a key derived by HKDF from MAILROOM_SECRET.
 * The stored form is `v1.<iv>.<tag>.<ciphertext>`, base64url; a changed secret fails to open.
 */
const VERSION = 'v1';

function keyOf(secret: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', secret, 'mailroom', 'remote-credentials', 32));
}

export function sealJson(secret: string, value: unknown): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function openJson<T>(secret: string, sealed: string): T {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('unreadable sealed value');
  const decipher = crypto.createDecipheriv('aes-256-gcm', keyOf(secret), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as T;
}
