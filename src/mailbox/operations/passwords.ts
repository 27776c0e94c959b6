import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { ValidationFailed } from '../errors.js';

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/** scrypt cost: N = 2^15, r = 8, p = 1 (32 MiB, tens of milliseconds), as OWASP's cheat sheet gives. */
const PARAMS = { N: 1 << 15, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
export const PASSWORD_MIN = 8;
/** Long enough for any passphrase, short enough that hashing one costs what hashing a short one does. */
export const PASSWORD_MAX = 1024;

const maxmemFor = (N: number, r: number) => 256 * N * r;

/** Why a password cannot be used, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `the password must be at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `the password must be at most ${PASSWORD_MAX} characters`;
  return null;
}

export function checkPassword(password: string, field = 'password'): string {
  const problem = passwordProblem(password);
  if (problem) throw ValidationFailed.field(field, problem);
  return password;
}

/** `scrypt$N$r$p$<salt base64>$<hash base64>`: the parameters travel with the hash, so they can grow later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES);
  const { N, r, p } = PARAMS;
  const hash = await scrypt(password.normalize('NFC'), salt, KEY_BYTES, { N, r, p, maxmem: maxmemFor(N, r) });
  return ['scrypt', N, r, p, salt.toString('base64'), hash.toString('base64')].join('$');
}

// Compared against when the user does not exist or has no password, so the answer takes as long.
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored` (null: none set, always false after the same work). */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? (await (decoy ??= hashPassword(crypto.randomUUID())))).split('$');
  const [kind, n, r, p, salt, hash] = parts;
  if (parts.length !== 6 || kind !== 'scrypt') return false;
  const expected = Buffer.from(hash!, 'base64');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const actual = await scrypt(password.normalize('NFC'), Buffer.from(salt!, 'base64'), expected.length, {
    ...params,
    maxmem: maxmemFor(params.N, params.r),
  });
  return crypto.timingSafeEqual(actual, expected) && stored !== null;
}
