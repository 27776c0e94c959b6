import crypto from 'node:crypto';

export function nowIso(date: Date = new Date()): string {
  return date.toISOString();
}

/** A random id with a readable prefix: `evt_3kq9...`. 16 bytes of entropy, base62-ish via base64url. */
export function newId(prefix: string, bytes = 16): string {
  return `${prefix}_${crypto.randomBytes(bytes).toString('base64url')}`;
}

export function sha256Hex(input: string | Buffer): string {
  return crypto.createHash('sha256').update(input).digest('hex');
}
