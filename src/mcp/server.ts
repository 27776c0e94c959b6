import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../version.js';
import type { McpTool, ToolContext } from './tool-kit.js';
import { toolError } from './tool-error.js';
import { readingTools } from './tools-reading.js';
import { writingTools } from './tools-writing.js';
import { approvalTools } from './tools-approvals.js';

export const MCP_TOOLS: McpTool[] = [...readingTools, ...writingTools, ...approvalTools];
const byName = new Map(MCP_TOOLS.map((tool) => [tool.listing.name, tool]));

const INSTRUCTIONS =
  'Mailroom gives you email inboxes. Start with list_inboxes: each address is the `account` of the other ' +
  'tools. wait_for_email blocks until mail arrives (for sign-up codes, replies). Emails carry extractedText, ' +
  'the new content without quoted history. Errors carry a code (validation_error, forbidden, not_found, ...) ' +
  'and a message saying what to fix.';

function serverFor(context: Omit<ToolContext, 'signal'>, httpSignal: AbortSignal): Server {
  const server = new Server(
    { name: 'mailroom', version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  // A key sees the tools its permissions let it use; one it may not use is refused by name when called.
  const usable = MCP_TOOLS.filter((tool) => context.caller.permissions.has(tool.permission));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: usable.map((tool) => tool.listing) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      const names = usable.map((t) => t.listing.name).join(', ');
      return toolError('not_found', `no tool ${JSON.stringify(request.params.name)}; tools are: ${names}`);
    }
    // A JSON answer does not see the HTTP client leave: either signal ends a long wait.
    const signal = AbortSignal.any([extra.signal, httpSignal]);
    return tool.call({ ...context, signal }, request.params.arguments ?? {});
  });
  return server;
}

/**
 * One Streamable HTTP exchange on `/mcp`, stateless: a server and a transport for this request
 * alone, seeing exactly the caller's inboxes. Nothing is kept between requests, so any node can
 * answer any request and a restart loses no session.
 */
export async function handleMcpRequest(
  request: Request,
  context: Omit<ToolContext, 'signal'>,
  parsedBody?: unknown,
): Promise<Response> {
  const server = serverFor(context, request.signal);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
  } finally {
    // With JSON responses the answer is complete here; the pair is done.
    void transport.close();
    void server.close();
  }
}
