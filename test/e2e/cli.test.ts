// Engines: SQLite only: `mailroom` as a process (serve's start and refusals, a command beside a running server); postgres-doors runs one on PostgreSQL.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLineError, mailroom } from '../helpers/cli.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

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

// A second process on the server's database: in the server's own process a command's write could
// wait on a lock a transaction of that same thread holds (SQLite's busy wait blocks the thread).
describe('the admin CLI while the server runs on the same data directory', { timeout: 300_000 }, () => {
  let server: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startServer();
    env = server.cliEnv;
  });
  afterAll(async () => server.stop());

  it('adds an inbox and a key that the running server uses at once, and revokes the key', async () => {
    const domain = server.inbox.split('@')[1]!;
    const inbox = await mailroom(['inbox', 'add', `ops@${domain}`, '--user', 'default'], env);
    expect(inbox.code, inbox.stderr).toBe(0);
    const created = JSON.parse(
      (await mailroom(['key', 'create', '--user', 'default', '--json'], env)).stdout,
    ).key;

    await server.sendMail({ from: 'a@example.com', to: `ops@${domain}`, subject: 'To ops', text: 'x' });
    const res = await server.api(`/emails?account=ops@${domain}`, { key: created.key });
    expect(res.status).toBe(200);
    expect(res.json.data.emails.map((e: { subject: string }) => e.subject)).toEqual(['To ops']);

    const keys = JSON.parse((await mailroom(['key', 'list', '--json'], env)).stdout).keys;
    const used = keys.find((k: { id: string }) => k.id === created.id);
    expect(used.last_used_at).toEqual(expect.any(String));

    expect((await mailroom(['key', 'revoke', created.id], env)).code).toBe(0);
    expect((await server.api('/accounts', { key: created.key })).status).toBe(401);
  });
});
