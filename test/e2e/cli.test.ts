// Engines: SQLite only: `mailroom serve` as a process (ports, its one-line refusals, exit codes); postgres-doors runs one on PostgreSQL.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLineError, mailroom } from '../helpers/cli.js';

// The commands' rules and wording are tested in-process in test/cli/; here, what needs a process.
describe('mailroom serve when it cannot start', { timeout: 300_000 }, () => {
  let dataDir: string;
  let blocker: net.Server;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-'));
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => blocker.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('says so in one line when a port is taken, and keeps the first-start key for the next start', async () => {
    const port = String((blocker.address() as net.AddressInfo).port);
    const env = { MAILROOM_DATA_DIR: dataDir, MAILROOM_LOG_LEVEL: 'silent' };
    expectOneLineError(
      await mailroom(['serve', '--http-port', port, '--smtp-port', '0'], env),
      new RegExp(
        `^mailroom: HTTP port ${port} on 127\\.0\\.0\\.1 is already in use \\(MAILROOM_HTTP_PORT, --http-port\\)`,
      ),
      1,
    );
    // The bootstrap key is printed only once the server is up, so a failed start must not use it up.
    const users = JSON.parse((await mailroom(['user', 'list', '--json'], env)).stdout).users;
    expect(users).toEqual([]);
  });

  it('names the SMTP port and its setting, and logs no connection error for it', async () => {
    const port = String((blocker.address() as net.AddressInfo).port);
    const result = await mailroom(['serve', '--http-port', '0', '--smtp-port', port], {
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_LOG_LEVEL: 'info',
    });
    expectOneLineError(
      result,
      new RegExp(
        `SMTP port ${port} on 127\\.0\\.0\\.1 is already in use \\(MAILROOM_SMTP_PORT, --smtp-port\\)`,
      ),
      1,
    );
    expect(result.stdout).not.toContain('connection error');
  });

  it('names the setting in one line when a value is invalid, and exits 1', async () => {
    const result = await mailroom(['serve', '--http-port', 'eighty'], { MAILROOM_DATA_DIR: dataDir });
    expectOneLineError(result, /MAILROOM_HTTP_PORT/, 1);
  });

  it('says in one line that MAILROOM_SECRET is wrong', async () => {
    const env = { MAILROOM_DATA_DIR: dataDir, MAILROOM_SECRET: 'not the secret of this database' };
    const serve = await mailroom(['serve', '--http-port', '0', '--smtp-port', '0'], env);
    expectOneLineError(serve, /MAILROOM_SECRET/, 1);
  });
});
