import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase, WAL_SIZE_LIMIT } from '../../src/db/open.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-wal-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// An IMAP sync of 30 messages of 28 MB left an 867 MB WAL behind for good.
it('cuts the WAL back after one large write has been checkpointed', async () => {
  const file = path.join(dir, 'mailroom.db');
  const db = openDatabase({ file });
  try {
    await db.rawRun('CREATE TABLE big_scratch (b BLOB)');
    const chunk = Buffer.alloc(4 * 1024 * 1024, 7);
    await db.transaction(async () => {
      for (let i = 0; i < 24; i++) await db.rawRun('INSERT INTO big_scratch (b) VALUES (?)', chunk);
    });
    const wal = `${file}-wal`;
    expect(fs.statSync(wal).size).toBeGreaterThan(WAL_SIZE_LIMIT);
    await db.rawRun('PRAGMA wal_checkpoint(PASSIVE)');
    await db.rawRun('INSERT INTO big_scratch (b) VALUES (?)', Buffer.from('small'));
    expect(fs.statSync(wal).size).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
  } finally {
    await db.close();
  }
});
