import type { Command } from 'commander';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { toolError } from '../mcp/tool-error.js';
import { CliError, EXIT } from './errors.js';

/**
 * When, counted from the process's start, an unanswered `initialize` is answered with an error
 * and the proxy ends: contract 13 wants a runtime told within 10 s, and on a loaded machine Node
 * takes a second or two to start and load the SDK.
 */
const INITIALIZE_BY_MS = 8_000;

/**
 * The least time a server gets to answer `initialize`, whenever the proxy got it: at load ~15 the
 * proxy itself took seven seconds to start, and a live server answering a second later was
 * reported as not answering. A refused key or connection is answered at once either way.
 */
const LEAST_PATIENCE_MS = 5_000;

/** The JSON-RPC code of a request the proxy could not get answered (the server-error range). */
const NOT_FORWARDED = -32000;

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

/** Why a request got no answer from the server: `code` is the contract's, when the server said one. */
interface Failure {
  text: string;
  code?: string;
}

async function proxy(endpoint: URL, key: string): Promise<void> {
  const { fetchWithTimeout, PROXY_TIMEOUT_MS } = await import('./long-fetch.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { StreamableHTTPClientTransport } =
    await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const local = new StdioServerTransport();
  const remote = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: refusalsThrown(fetchWithTimeout(PROXY_TIMEOUT_MS)),
  });
  const say = (text: string) => process.stderr.write(`mailroom mcp: ${text}\n`);
  // The transport reports a failed send here and then throws it to relay(), which says it
  // better; this says the rest (a broken event stream), a turn later, once relay() had its go.
  const answered = new WeakSet<object>();
  remote.onerror = (error) =>
    setImmediate(() => {
      if (!answered.has(error)) say(error.message);
    });
  local.onerror = (error) => say(error.message);

  let ending = false;
  /** Answers a request the server did not; a failed `initialize` ends the proxy (exit 1). */
  const giveUp = async (message: JSONRPCMessage, failure: Failure) => {
    if (ending) return;
    ending = isInitialize(message);
    say(failure.text);
    if (isRequest(message)) await local.send(answerTo(message, failure, endpoint)).catch(() => undefined);
    // The answer is written before the process ends.
    if (ending) process.stdout.write('', () => process.exit(EXIT.failed));
  };

  /** Answers `initialize` if the server has not by INITIALIZE_BY_MS. */
  const deadlineFor = (message: JSONRPCMessage) => {
    const patience = Math.max(INITIALIZE_BY_MS - performance.now(), LEAST_PATIENCE_MS);
    const text = `${endpoint.href} did not answer within ${(patience / 1000).toFixed(1)} s`;
    return setTimeout(() => void giveUp(message, { text }), patience);
  };

  const relay = async (message: JSONRPCMessage) => {
    const deadline = isInitialize(message) ? deadlineFor(message) : undefined;
    try {
      await remote.send(message);
    } catch (error) {
      if (typeof error === 'object' && error !== null) answered.add(error);
      await giveUp(message, failureOf(error, endpoint));
    } finally {
      clearTimeout(deadline);
    }
  };

  local.onmessage = (message) => void relay(message);
  remote.onmessage = (message) => void local.send(message).catch((error: Error) => say(error.message));
  local.onclose = () => void remote.close().finally(() => process.exit(EXIT.ok));
  await remote.start();
  await local.start();
}

function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

const isInitialize = (message: JSONRPCMessage) => isRequest(message) && message.method === 'initialize';

/**
 * The error answer to a request the server did not answer. A tool call the server refused with
 * a contract code (a revoked key: `unauthorized`) is a tool error, as the server's own refusals
 * are; anything else is a JSON-RPC error naming the URL and the cause.
 */
function answerTo(request: JSONRPCRequest, failure: Failure, endpoint: URL): JSONRPCMessage {
  if (request.method === 'tools/call' && failure.code) {
    return { jsonrpc: '2.0', id: request.id, result: toolError(failure.code, failure.text) };
  }
  const data = { url: endpoint.href, ...(failure.code ? { code: failure.code } : {}) };
  return { jsonrpc: '2.0', id: request.id, error: { code: NOT_FORWARDED, message: failure.text, data } };
}

/** The server answered a POST with an error status: what it said, in the contract's terms. */
class Refused extends Error {
  constructor(
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A fetch that throws `Refused` for a POST the server answered with an error status, so the
 * proxy can say what the server said (the transport's own error holds only the body's text).
 * Other requests are the transport's to judge: a GET answered 405 means "no event stream".
 */
function refusalsThrown(
  base: (url: string | URL, init?: RequestInit) => Promise<Response>,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const response = await base(url, init);
    if (init?.method !== 'POST' || response.status < 400) return response;
    throw await refusalOf(response);
  };
}

async function refusalOf(response: Response): Promise<Refused> {
  // Every request carries a key, so a 401 means this one is unknown or revoked.
  if (response.status === 401) {
    await response.body?.cancel();
    return new Refused('unauthorized', '401 unauthorized: the API key is unknown or revoked');
  }
  const text = await response.text().catch(() => '');
  let said: { error?: { code?: unknown; message?: unknown } } | undefined;
  try {
    said = JSON.parse(text) as typeof said;
  } catch {
    said = undefined;
  }
  // Mailroom's errors carry the contract's code; an MCP transport's, a JSON-RPC number.
  const code = typeof said?.error?.code === 'string' ? said.error.code : undefined;
  const status = code ? `${response.status} ${code}` : `${response.status} ${response.statusText}`.trim();
  if (typeof said?.error?.message === 'string') return new Refused(code, `${status}: ${said.error.message}`);
  const hint = response.status === 404 ? ': is it a Mailroom server? --url takes its base address' : '';
  return new Refused(code, `${status}${hint}`);
}

function failureOf(error: unknown, endpoint: URL): Failure {
  if (error instanceof Refused)
    return { text: `${endpoint.href} answered ${error.message}`, code: error.code };
  // fetch says "fetch failed"; its cause says why (ECONNREFUSED, ENOTFOUND, a certificate...).
  const cause = error instanceof TypeError && error.cause !== undefined ? error.cause : undefined;
  if (cause !== undefined) return { text: `${endpoint.href} cannot be reached: ${reasonOf(cause)}` };
  return { text: `${endpoint.href}: ${reasonOf(error)}` };
}

/** An error's own words; a refused connection to each address a name has is an AggregateError. */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return [...new Set(error.errors.map(reasonOf))].join('; ');
  }
  return error instanceof Error ? error.message : String(error);
}
