// Engines: SQLite only: the stdio MCP process's failures, a process rule.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../../src/mailbox/operations/admin.js';
import { compiled } from '../helpers/compiled.js';
import { freePort } from '../helpers/host.js';
import { call, callError, connectStdio } from '../helpers/mcp.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'a-runtime', version: '1.0.0' },
  },
};

interface Outcome {
  /** The JSON-RPC messages the proxy wrote on stdout. */
  answers: { id?: unknown; result?: unknown; error?: { code: number; message: string } }[];
  /** Its exit code, or 'still running' when it had not ended by the test's own patience. */
  exit: number | 'still running';
  stderr: string;
}

/**
 * What an agent runtime sees when it launches `mailroom mcp` and sends `initialize`: the answer
 * and whether the process ends. Stdin stays open, as a runtime keeps it. The patience is only a
 * bound against hanging forever; the proxy is expected to end well within it.
 */
async function launch(args: string[], patienceMs = 45_000): Promise<Outcome> {
  const child = spawn(process.execPath, [await compiled('src/cli/main.ts'), 'mcp', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([
    new Promise<number>((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 0))),
    ),
    new Promise<'still running'>(
      (resolve) => (timer = setTimeout(() => resolve('still running'), patienceMs)),
    ),
  ]);
  clearTimeout(timer);
  if (exit === 'still running') child.kill();
  const answers = stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Outcome['answers'][number]);
  return { answers, exit, stderr };
}

describe('mailroom mcp when the server refuses it or is not there (contract 13)', { timeout: 90_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.stop());

  it('answers initialize with an error naming the URL and the refused key, and exits non-zero', async () => {
    const outcome = await launch(['--url', server.baseUrl, '--key', 'mr_not_a_key_of_this_server']);
    expect(outcome.exit, outcome.stderr).not.toBe('still running');
    expect(outcome.exit).not.toBe(0);
    expect(outcome.answers).toHaveLength(1);
    const [answer] = outcome.answers;
    expect(answer!.id).toBe(1);
    expect(answer!.error?.message).toContain(`${server.baseUrl}/mcp`);
    expect(answer!.error?.message).toContain('401 unauthorized: the API key is unknown or revoked');
  });

  it('answers initialize with an error naming the URL and the refused connection, and exits non-zero', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const outcome = await launch(['--url', url, '--key', server.key]);
    expect(outcome.exit, outcome.stderr).not.toBe('still running');
    expect(outcome.exit).not.toBe(0);
    expect(outcome.answers).toHaveLength(1);
    const [answer] = outcome.answers;
    expect(answer!.id).toBe(1);
    expect(answer!.error?.message).toContain(`${url}/mcp`);
    expect(answer!.error?.message).toContain(`connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('answers initialize with an error when the server takes the connection but never answers', async () => {
    // A listener that accepts and then says nothing, as a hung server or a wrong port may.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    try {
      const outcome = await launch(['--url', url, '--key', server.key]);
      expect(outcome.exit, outcome.stderr).not.toBe('still running');
      expect(outcome.exit).not.toBe(0);
      expect(outcome.answers).toHaveLength(1);
      expect(outcome.answers[0]!.error?.message).toContain(`${url}/mcp did not answer within`);
    } finally {
      silent.close();
    }
  });

  it('answers a tool call after its key is revoked with a tool error coded unauthorized', async () => {
    const dave = await server.addUser('dave-stdio', 'dave-stdio');
    const client = await connectStdio(server, dave.key);
    try {
      expect((await call(client, 'list_inboxes')).accounts).toHaveLength(1);
      const [key] = await server.mailroom.deps.store.apiKeys.list(dave.userId);
      await revokeKey(server.mailroom.deps, key!.id);
      const refused = await callError(client, 'list_inboxes', {});
      expect(refused.code).toBe('unauthorized');
      expect(refused.message).toContain(`${server.baseUrl}/mcp`);
    } finally {
      await client.close();
    }
  });
});
