import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cache-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// The ingest thread's connection keeps a 4 MB page cache and the main thread's 16 MB: each
// fills to its size over a long run: 100,000 messages left the server ~9 MB less resident (issue 31).
it('gives a connection the page cache it is opened with, 16 MB unless told', async () => {
  const cacheOf = async (cacheKib?: number) => {
    const db = openDatabase({ file: path.join(dir, `c${cacheKib ?? 'default'}.db`), cacheKib });
    try {
      return (await db.rawFirst<{ cache_size: number }>('PRAGMA cache_size'))!.cache_size;
    } finally {
      await db.close();
    }
  };
  expect(await cacheOf()).toBe(-16_384);
  expect(await cacheOf(4_096)).toBe(-4_096);
});
