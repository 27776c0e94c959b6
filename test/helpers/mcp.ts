import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { compiled } from './compiled.js';
import type { TestServer } from './server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** An MCP client on the server's `/mcp` over Streamable HTTP, with `key` as its Bearer key. */
export async function connect(server: TestServer, key: string): Promise<Client> {
  const client = new Client({ name: 'mailroom-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** An MCP client on `mailroom mcp --url <server>` run as a child process, the key in MAILROOM_KEY. */
export async function connectStdio(server: TestServer, key: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [await compiled('src/cli/main.ts'), 'mcp', '--url', server.baseUrl],
    env: { PATH: process.env.PATH ?? '', MAILROOM_KEY: key },
    cwd: root,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mailroom-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The JSON a tool answered; fails the test on a tool error. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content[0]?.type === 'text' ? result.content[0].text : undefined;
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return text !== undefined ? JSON.parse(text) : result;
}

export interface ToolErrorBody {
  code: string;
  message: string;
  details?: { path: string; message: string }[];
}

/** The contract error of a tool call that must fail. */
export async function callError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolErrorBody> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result)).toBe(true);
  const first = result.content[0];
  return (JSON.parse(first?.type === 'text' ? first.text : '{}') as { error: ToolErrorBody }).error;
}

export interface ToolAnswer {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data?: any;
  error?: ToolErrorBody;
}

/**
 * What a tool answered, success or tool error alike: its JSON, or the contract error it carries.
 * Waits for as long as the tool takes (the SDK gives up after 60 s by default; a wait may hold 300).
 */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 600_000,
  })) as CallToolResult;
  const first = result.content[0];
  const json: unknown = JSON.parse(first?.type === 'text' ? first.text : '{}');
  return result.isError ? { error: (json as { error: ToolErrorBody }).error } : { data: json };
}
