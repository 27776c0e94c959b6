import type { Command } from 'commander';
import { CliError } from './errors.js';

/**
 * `mailroom mcp --url --key`: MCP over stdio for runtimes that launch a local process. It holds
 * no data of its own: every message goes to the server's `/mcp` over HTTP with the key, and every
 * answer comes back on stdout.
 */
export function registerMcpProxy(program: Command): void {
  program
    .command('mcp')
    .description("MCP over stdio, proxied to a running server's /mcp (MAILROOM_URL, MAILROOM_KEY)")
    .option('--url <url>', 'the server, e.g. http://127.0.0.1:3000 (MAILROOM_URL)')
    .option('--key <key>', 'an API key (MAILROOM_KEY)')
    .action(async (flags: { url?: string; key?: string }) => {
      const url = flags.url ?? process.env.MAILROOM_URL;
      const key = flags.key ?? process.env.MAILROOM_KEY;
      if (!url)
        throw new CliError('usage', 'mcp needs the server address: --url http://host:3000 or MAILROOM_URL');
      if (!key) throw new CliError('usage', 'mcp needs an API key: --key <key> or MAILROOM_KEY');
      let endpoint: URL;
      try {
        endpoint = new URL('/mcp', url);
      } catch {
        throw new CliError('usage', `--url is not a URL: ${JSON.stringify(url)}`);
      }
      await proxy(endpoint, key);
    });
}

async function proxy(endpoint: URL, key: string): Promise<void> {
  const { fetchWithTimeout, PROXY_TIMEOUT_MS } = await import('./long-fetch.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { StreamableHTTPClientTransport } =
    await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const local = new StdioServerTransport();
  const remote = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: fetchWithTimeout(PROXY_TIMEOUT_MS),
  });
  const fail = (error: Error) => process.stderr.write(`mailroom mcp: ${error.message}\n`);
  remote.onerror = fail;
  local.onerror = fail;
  local.onmessage = (message) => void remote.send(message).catch(fail);
  remote.onmessage = (message) => void local.send(message).catch(fail);
  local.onclose = () => void remote.close().finally(() => process.exit(0));
  await remote.start();
  await local.start();
}
