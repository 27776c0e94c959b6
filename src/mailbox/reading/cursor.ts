import { ValidationFailed } from '../errors.js';

/** Cursors are opaque to callers: base64url of `kind:position`. */
export function encodeCursor(kind: string, position: number): string {
  return Buffer.from(`${kind}:${position}`).toString('base64url');
}

export function decodeCursor(cursor: string, kind: string): number {
  const [k, value] = Buffer.from(cursor, 'base64url').toString().split(':');
  const n = Number(value);
  if (k !== kind || !Number.isSafeInteger(n) || n < 0)
    throw ValidationFailed.field('cursor', 'cursor is not valid');
  return n;
}
