import crypto from 'node:crypto';

export function nowIso(date: Date = new Date()): string {
  return date.toISOString();
}

// Random bytes drawn 4 KB at a time: one call per id cost about 10 µs on the ingest path.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomSlice(bytes: number): Buffer {
  if (bytes > pool.length) return crypto.randomBytes(bytes);
  if (poolOffset + bytes > pool.length) {
    crypto.randomFillSync(pool);
    poolOffset = 0;
  }
  const slice = pool.subarray(poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return slice;
}

/** A random id with a readable prefix: `evt_3kq9...`. 16 bytes of entropy, base62-ish via base64url. */
export function newId(prefix: string, bytes = 16): string {
  return `${prefix}_${randomSlice(bytes).toString('base64url')}`;
}

export function sha256Hex(input: string | Buffer): string {
  return crypto.createHash('sha256').update(input).digest('hex');
}
