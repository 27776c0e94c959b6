import crypto from 'node:crypto';

/**
 * Secrets at rest (contract 9): AES-256-GCM under a key derived by HKDF from MAILROOM_SECRET, one
 * key per kind of secret (the HKDF info), so a value sealed for one use never opens as another.
 * The stored form is `v1.<iv>.<tag>.<ciphertext>`, base64url; a changed secret fails to open.
 */
const VERSION = 'v1';

/** What a sealed value is; 'remote-credentials' is the key IMAP settings were first sealed under. */
export type SealPurpose = 'remote-credentials' | 'dkim-private-key' | 'webhook-secret' | 'secret-check';

/** A stored value that does not open: another MAILROOM_SECRET, or a damaged value. */
export class SealedValueUnreadable extends Error {}

/** How every sealed value starts; plaintext stored before sealing (a PEM, a whsec_ secret) does not. */
export const SEALED_PREFIX = `${VERSION}.`;

export class Sealer {
  private readonly keys = new Map<SealPurpose, Buffer>();

  constructor(private readonly secret: string) {}

  seal(purpose: SealPurpose, plaintext: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.keyOf(purpose), iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(purpose: SealPurpose, sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined)
      throw new SealedValueUnreadable('not a sealed value');
    try {
      const decipher = crypto.createDecipheriv(
        'aes-256-gcm',
        this.keyOf(purpose),
        Buffer.from(iv, 'base64url'),
      );
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new SealedValueUnreadable(`a sealed ${purpose} does not open with this MAILROOM_SECRET`);
    }
  }

  private keyOf(purpose: SealPurpose): Buffer {
    let key = this.keys.get(purpose);
    if (!key) {
      key = Buffer.from(crypto.hkdfSync('sha256', this.secret, 'mailroom', purpose, 32));
      this.keys.set(purpose, key);
    }
    return key;
  }
}

/** IMAP connection settings, sealed as JSON (the form every existing row already has). */
export function sealJson(secret: string, value: unknown): string {
  return new Sealer(secret).seal('remote-credentials', JSON.stringify(value));
}

export function openJson<T>(secret: string, sealed: string): T {
  return JSON.parse(new Sealer(secret).open('remote-credentials', sealed)) as T;
}
