import { z } from '@hono/zod-openapi';
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { requestErrorMap, validationMessage, zodDetails } from '../contract/validation-messages.js';
import type { ErrorDetail } from '../mailbox/errors.js';
import { mailroomErrorOf } from '../mailbox/errors.js';
import type { MailboxDeps } from '../mailbox/deps.js';
import type { KeyCaller, Permission } from '../mailbox/caller.js';
import { requirePermission } from '../mailbox/caller.js';
import { toolError } from './tool-error.js';
import type { AuditAction } from '../contract/audit.js';
import { finishAudit, openAudit } from '../mailbox/audit/audit-context.js';

/** What a tool runs with: the API key acting and its reach, as the HTTP door's authentication found it. */
export interface ToolContext {
  deps: MailboxDeps;
  /** The key and its reach; a long wait ends when the key is revoked, and counts among its waits. */
  caller: KeyCaller;
  /** Where the HTTP API is, for links to large attachments. */
  apiBase: string;
  /** Aborts when the client goes away (a long wait stops). */
  signal: AbortSignal;
  /** X-Request-Id of the HTTP request carrying the call, in the audit record. */
  requestId: string;
}

type Shape = Record<string, z.ZodType>;

/**
 * Every hint said, none left to a client's default (an unsaid openWorldHint means true, an
 * unsaid destructiveHint too): what the tool does to the inbox and whether it reaches the world.
 */
export type Hints = Required<
  Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>
> & { title: string };

/** Words for a tool's inputs, by name: its own params' and its reused body's. */
type FieldWords<P extends Shape, B> = {
  [K in (keyof P | (B extends z.ZodType ? keyof z.input<B> : never)) & string]?: string;
};

/**
 * A tool: `params` are its own fields (which email, which inbox); `body`, when given, is the HTTP
 * API's request body schema, reused as is for the remaining fields. Both are checked before `run`.
 * Every input is described, in `fields` or by its schema's `.describe()`: the API's schemas carry
 * their words as OpenAPI metadata, which a JSON Schema does not show.
 */
export interface ToolDefinition<P extends Shape, B extends z.ZodType | undefined> {
  name: string;
  /** What a key needs to see and call it (contract 14). */
  permission: Permission;
  /** What the audit trail records a call as; every tool that is not read-only declares one. */
  action?: AuditAction;
  description: string;
  annotations: Hints;
  params: P;
  body?: B;
  fields?: FieldWords<P, B>;
  run(
    context: ToolContext,
    params: z.output<z.ZodObject<P>>,
    body: B extends z.ZodType ? z.output<B> : undefined,
  ): unknown;
}

export interface McpTool {
  listing: Tool;
  permission: Permission;
  call(context: ToolContext, args: Record<string, unknown>): Promise<CallToolResult>;
}

export function defineTool<P extends Shape, B extends z.ZodType | undefined = undefined>(
  definition: ToolDefinition<P, B>,
): McpTool {
  const params = z.strictObject(definition.params);
  const ownKeys = new Set(Object.keys(definition.params));
  const { action } = definition;
  if (action === undefined && !definition.annotations.readOnlyHint)
    throw new Error(`MCP tool ${definition.name} changes state but declares no audit action`);
  const call = callOf(definition, params, ownKeys);
  return {
    permission: definition.permission,
    listing: {
      name: definition.name,
      description: definition.description,
      annotations: definition.annotations,
      inputSchema: inputSchemaOf(definition.name, params, definition.body, definition.fields ?? {}),
    },
    async call(context, args) {
      if (action === undefined) return call(context, args);
      const { caller } = context;
      const audit = openAudit({
        door: 'mcp',
        action,
        requestId: context.requestId,
        actor: { kind: 'key', id: caller.keyId },
        userId: caller.userId,
        account: typeof args.account === 'string' ? args.account.trim().toLowerCase() : null,
        target: typeof args.uid === 'number' || typeof args.uid === 'string' ? String(args.uid) : null,
      });
      const result = await call({ ...context, caller: { ...caller, audit } }, args);
      await finishAudit(context.deps, audit, outcomeOfToolResult(result));
      return result;
    },
  };
}

/** `ok`, or the code a tool error carries. */
function outcomeOfToolResult(result: CallToolResult): string {
  if (!result.isError) return 'ok';
  const text = result.content?.[0]?.type === 'text' ? result.content[0].text : '';
  try {
    return (JSON.parse(text) as { error: { code: string } }).error.code;
  } catch {
    return 'internal_error';
  }
}

/** A tool's call: the permission, then its inputs, then its verb; every failure a tool error. */
function callOf<P extends Shape, B extends z.ZodType | undefined>(
  definition: ToolDefinition<P, B>,
  params: z.ZodObject<P>,
  ownKeys: Set<string>,
): McpTool['call'] {
  return async (context, args) => {
    try {
      requirePermission(context.caller, definition.permission);
    } catch (error) {
      const refusal = mailroomErrorOf(error)!;
      return toolError(refusal.code, refusal.message);
    }
    const own: Record<string, unknown> = {};
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(args)) (ownKeys.has(key) ? own : rest)[key] = value;
    const details: ErrorDetail[] = [];
    // The HTTP API's words for the same mistakes, without its "(in the JSON body)".
    const wording = { error: requestErrorMap() };
    const parsed = await params.safeParseAsync(definition.body ? own : args, wording);
    if (!parsed.success) details.push(...zodDetails(parsed.error));
    let body: unknown;
    if (definition.body) {
      const result = await definition.body.safeParseAsync(rest, wording);
      if (result.success) body = result.data;
      else details.push(...zodDetails(result.error));
    }
    if (details.length > 0) return toolError('validation_error', validationMessage(details), details);
    try {
      const data = await definition.run(context, parsed.data!, body as never);
      return isToolResult(data) ? data : toolResult(data);
    } catch (error) {
      const known = mailroomErrorOf(error);
      if (known) return toolError(known.code, known.message, known.details);
      context.deps.log.error({ err: error, tool: definition.name }, 'MCP tool failed');
      return toolError('internal_error', 'internal error');
    }
  };
}

/**
 * One JSON Schema for the tool's own fields and the reused body's, as a client sees them, each
 * property with its description. A property left undescribed is a mistake in the tool's
 * definition, refused when the tools are first loaded.
 */
function inputSchemaOf(
  tool: string,
  params: z.ZodObject,
  body: z.ZodType | undefined,
  words: Partial<Record<string, string>>,
): Tool['inputSchema'] {
  const jsonOf = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
      properties?: Record<string, { description?: string }>;
      required?: string[];
    };
  const own = jsonOf(params);
  const other = body ? jsonOf(body) : {};
  const required = [...new Set([...(own.required ?? []), ...(other.required ?? [])])];
  const properties = Object.entries({ ...other.properties, ...own.properties }).map(([name, property]) => {
    const description = words[name] ?? property.description;
    if (!description) throw new Error(`MCP tool ${tool}: input ${name} has no description`);
    return [name, { ...property, description }] as const;
  });
  return {
    type: 'object',
    properties: Object.fromEntries(properties),
    ...(required.length > 0 ? { required } : {}),
  };
}

function isToolResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' && value !== null && Array.isArray((value as { content?: unknown }).content)
  );
}

/** The answer as JSON text (for any client) and as structured content (for clients that read it). */
export function toolResult(data: unknown): CallToolResult {
  const structured = (typeof data === 'object' && data !== null ? data : { result: data }) as Record<
    string,
    unknown
  >;
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: structured };
}
