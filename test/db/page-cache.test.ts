import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cache-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// Each connection's page cache fills to its size over a long run. At 16 MB the main thread's held
// a server ~14 MB more resident after 300,000 messages than at 4 MB, for lists, searches and an
// IMAP sync no faster (issue 31, docs/decisions/memory.md).
it('gives every SQLite connection a 4 MB page cache', async () => {
  const db = openDatabase({ file: path.join(dir, 'cache.db') });
  try {
    expect((await db.rawFirst<{ cache_size: number }>('PRAGMA cache_size'))!.cache_size).toBe(-4_096);
  } finally {
    await db.close();
  }
});
