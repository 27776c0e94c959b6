import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printedCommand, runAsPasted } from '../helpers/cli.js';
import { spawnServe } from '../helpers/serve-process.js';

// Two starts of a compiled server and a command: allow a loaded machine its time.
describe('the commands the start banner prints, pasted as printed', { timeout: 180_000 }, () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-banner-'));
  // A name a shell would split, expand or end a quote on, unless the banner quotes it.
  const dataDir = path.join(parent, "the team's $HOME data");
  afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

  it('reach a data directory that is not the default, whatever its name', async () => {
    const first = await spawnServe({ MAILROOM_DATA_DIR: dataDir });
    await first.stop();

    const serve = await spawnServe({ MAILROOM_DATA_DIR: dataDir });
    try {
      // Pasted into another terminal: nothing of the server's environment there.
      const made = await runAsPasted(printedCommand(serve.stderr(), 'key create'), {});
      expect(made.code, made.stderr).toBe(0);
      const key = /mr_live_[\w-]+/.exec(made.stdout)?.[0];
      const accounts = await fetch(`${serve.baseUrl}/api/v1/accounts`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(accounts.status).toBe(200);

      const list = /list or revoke: (npx mailroom key list[^)]*)\)/.exec(serve.stderr())?.[1];
      const listed = await runAsPasted(list!, {});
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout.match(/^key_/gm)).toHaveLength(2);
      expect(fs.readdirSync(parent)).toEqual([path.basename(dataDir)]);
      expect(first.stderr()).toContain(`later: npx mailroom user passwd default --data-dir '`);
    } finally {
      await serve.stop();
    }
  });
});
