import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mailroom } from '../helpers/cli.js';
import { freePort } from '../helpers/host.js';

describe('MAILROOM_DATABASE_URL that cannot be used', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-pg-start-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('stops the start with one line naming the URL without its password and the cause', async () => {
    // Nothing listens on this port.
    const port = await freePort();
    const url = `postgres://mailroom:hunter2-secret@127.0.0.1:${port}/mailroom?sslmode=disable`;
    const result = await mailroom(['serve', '--http-port', '0', '--smtp-port', '0'], {
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_DATABASE_URL: url,
      MAILROOM_BOOTSTRAP: 'false',
    });
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`postgres://mailroom@127.0.0.1:${port}/mailroom`);
    expect(lines[0]).toContain('ECONNREFUSED');
    expect(result.stderr + result.stdout).not.toContain('hunter2');
  });

  it('has mailroom backup and restore point to the engine own tools instead of copying a file', async () => {
    const url = 'postgres://mailroom:hunter2-secret@127.0.0.1:1/mailroom';
    const backup = await mailroom(['backup', path.join(dataDir, 'copy.db'), '--database-url', url], {});
    expect(backup.code).not.toBe(0);
    expect(backup.stderr).toContain('pg_dump');
    const restore = await mailroom(['restore', path.join(dataDir, 'copy.db'), '--database-url', url], {});
    expect(restore.code).not.toBe(0);
    expect(restore.stderr).toContain('pg_restore');
    expect(backup.stderr + restore.stderr).not.toContain('hunter2');
    expect(fs.existsSync(path.join(dataDir, 'copy.db'))).toBe(false);
  });
});
