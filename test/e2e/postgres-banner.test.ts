import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedCommand, runAsPasted } from '../helpers/cli.js';
import type { CliResult } from '../helpers/cli.js';
import { spawnServe } from '../helpers/serve-process.js';
import type { ServeProcess } from '../helpers/serve-process.js';
import { testPostgres } from '../helpers/test-postgres.js';

const PASSWORD = 'pw-Never-Printed-42';

// Several starts of a compiled server and commands beside them: allow a loaded machine its time.
describe('the start banner on PostgreSQL', { timeout: 240_000 }, () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-pg-banner-'));
  const dataDir = path.join(parent, 'secret and $data');
  let url: string;
  const seen: string[] = [];
  beforeAll(async () => {
    // The test server trusts every local connection, so a password in the URL is carried, not checked.
    const withPassword = new URL(await (await testPostgres()).createDatabase());
    withPassword.password = PASSWORD;
    url = withPassword.toString();
    const first = await spawnServe({ MAILROOM_DATA_DIR: dataDir, MAILROOM_DATABASE_URL: url });
    await first.stop();
    seen.push(first.stderr(), first.stdout());
  });
  afterAll(() => {
    fs.rmSync(parent, { recursive: true, force: true });
    expect(seen.join('\n')).not.toContain(PASSWORD);
  });

  /** A key made with the banner's command as printed: it opens the server's own inbox list. */
  async function madeAKey(serve: ServeProcess, made: CliResult): Promise<void> {
    seen.push(made.stdout, made.stderr);
    expect(made.code, made.stderr).toBe(0);
    const key = /mr_live_[\w-]+/.exec(made.stdout)?.[0];
    const accounts = await fetch(`${serve.baseUrl}/api/v1/accounts`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(accounts.status).toBe(200);
  }

  it('refers to a URL from the environment by its variable, and the command says so where it is not set', async () => {
    const serve = await spawnServe({ MAILROOM_DATA_DIR: dataDir, MAILROOM_DATABASE_URL: url });
    try {
      seen.push(serve.stderr());
      const line = printedCommand(serve.stderr(), 'key create');
      expect(line).toContain('--database-url "$MAILROOM_DATABASE_URL"');
      await madeAKey(serve, await runAsPasted(line, { MAILROOM_DATABASE_URL: url }));
      const elsewhere = await runAsPasted(line, {});
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.stderr).toContain('MAILROOM_DATABASE_URL');
    } finally {
      await serve.stop();
      seen.push(serve.stdout());
    }
  });

  it('shows a URL given as a flag without its password, and says how to give it', async () => {
    const serve = await spawnServe({ MAILROOM_DATA_DIR: dataDir }, ['--database-url', url]);
    try {
      seen.push(serve.stderr());
      expect(serve.stderr()).toContain('shown without its password');
      await madeAKey(serve, await runAsPasted(printedCommand(serve.stderr(), 'key create'), {}));
    } finally {
      await serve.stop();
      seen.push(serve.stdout());
    }
  });

  it('names the file a URL was read from', async () => {
    const file = path.join(parent, 'database-url');
    fs.writeFileSync(file, `${url}\n`, { mode: 0o600 });
    const serve = await spawnServe({ MAILROOM_DATA_DIR: dataDir, MAILROOM_DATABASE_URL_FILE: file });
    try {
      seen.push(serve.stderr());
      const line = printedCommand(serve.stderr(), 'key create');
      expect(line).toMatch(/^MAILROOM_DATABASE_URL_FILE=\S+ npx mailroom key create /);
      await madeAKey(serve, await runAsPasted(line, {}));
    } finally {
      await serve.stop();
      seen.push(serve.stdout());
    }
  });
});
