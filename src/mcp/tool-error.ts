import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorDetail } from '../mailbox/errors.js';

/**
 * An MCP tool error carrying the contract's code (section 3) and what to fix: the form of every
 * refused call, whether a tool refused it or the stdio proxy (`mailroom mcp`) found the server
 * refusing its key.
 */
export function toolError(code: string, message: string, details?: ErrorDetail[]): CallToolResult {
  const error = { code, message, ...(details ? { details } : {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }] };
}
