// Engines: SQLite only: which modules a `mailroom serve` process loads does not depend on where it keeps its data.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe } from '../helpers/serve-process.js';
import type { ServeProcess } from '../helpers/serve-process.js';

const KEY = `mr_live_${'l'.repeat(40)}`;

/**
 * A server loads what an external inbox, an MCP client, a message's authentication or the
 * dashboard's reader needs when one first comes, not at start: imapflow, the MCP SDK and mailauth
 * were ~1.1 CPU-s of every start (and every `mailroom` command) and ~15 MB of heap, sanitize-html
 * ~2 MB; and a server on SQLite never loads the PostgreSQL driver (~3 MB). A resolve hook in the
 * `serve` process logs every module it loads.
 */
describe('modules a server loads only when they are first needed', { timeout: 120_000 }, () => {
  let dir: string;
  let log: string;
  let serve: ServeProcess;
  const loaded = () => fs.readFileSync(log, 'utf8');
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-lazy-'));
    log = path.join(dir, 'modules.log');
    fs.writeFileSync(log, '');
    const hook = path.join(dir, 'hook.mjs');
    fs.writeFileSync(
      hook,
      [
        "import fs from 'node:fs';",
        'let file;',
        'export function initialize(data) { file = data.file; }',
        'export async function resolve(specifier, context, next) {',
        '  const resolved = await next(specifier, context);',
        "  fs.appendFileSync(file, resolved.url + '\\n');",
        '  return resolved;',
        '}',
      ].join('\n'),
    );
    const register = path.join(dir, 'register.mjs');
    fs.writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hook}`)}, { data: { file: ${JSON.stringify(log)} } });\n`,
    );
    serve = await spawnServe({
      MAILROOM_DATA_DIR: path.join(dir, 'data'),
      MAILROOM_BOOTSTRAP_KEY: KEY,
      NODE_OPTIONS: `--import=${register}`,
    });
  });
  afterAll(async () => {
    await serve?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts without imapflow, the MCP SDK, mailauth, sanitize-html or pg, and loads the MCP SDK with the first MCP request', async () => {
    expect(loaded()).toMatch(/\/node_modules\/kysely\//);
    for (const name of ['imapflow', '@modelcontextprotocol/sdk', 'mailauth', 'sanitize-html', 'pg'])
      expect(loaded(), name).not.toContain(`/node_modules/${name}/`);

    const res = await fetch(`${serve.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('list_emails');
    expect(loaded()).toContain('/node_modules/@modelcontextprotocol/sdk/');
  });
});
