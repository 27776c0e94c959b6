import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestServer } from './server.js';

/** An MCP client on the server's `/mcp`, authenticated with `key`. */
export async function connectMcp(server: TestServer, key: string): Promise<Client> {
  const client = new Client({ name: 'mailroom-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

export interface ToolAnswer {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data?: any;
  error?: { code: string; message: string };
}

/** What a tool answered: its JSON, or (a tool error) the contract error it carries. */
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
  return result.isError ? { error: (json as { error: ToolAnswer['error'] }).error } : { data: json };
}
