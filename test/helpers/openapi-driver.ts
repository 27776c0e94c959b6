import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import fc from 'fast-check';
import type { Hints, Schema } from './openapi-arbitraries.js';
import { arbitraryOf, resolve, wrongValue } from './openapi-arbitraries.js';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

interface MediaType {
  schema?: Schema;
}

export interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

export interface OpenApiDocument {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
}

/** A request as generated, before it is written to the wire. */
export interface FuzzRequest {
  method: string;
  /** The document's path template and the values of its parameters. */
  template: string;
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body?: unknown;
  /** `text`: the body is sent as it is (not JSON-encoded); `type`: without Content-Type. */
  bodyMode?: 'json' | 'text' | 'type';
}

export interface OperationRef {
  method: string;
  path: string;
  operation: Operation;
}

export function operationsOf(doc: OpenApiDocument): OperationRef[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
  );
}

/** Hints for one kind of place a value goes: path, query, header, and the JSON body's fields. */
export interface PlaceHints {
  /** By path template: `{id}` of /emails/{id} is a uid, of /labels/{id} a label. */
  path?: (template: string) => Hints;
  query?: Hints;
  header?: Hints;
  body?: Hints;
}

/** Requests for one operation that its document allows, mostly; the hints pick real values. */
export function validRequests(doc: OpenApiDocument, ref: OperationRef, hints: PlaceHints) {
  const params = (ref.operation.parameters ?? []).map(
    (p) => resolve(p as Schema, doc) as unknown as Parameter,
  );
  const pick = (place: Parameter['in']) => {
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    const required: string[] = [];
    const placeHints = place === 'path' ? hints.path?.(ref.path) : hints[place];
    for (const p of params.filter((x) => x.in === place)) {
      const own = arbitraryOf(p.schema, doc);
      const hint = placeHints?.[p.name];
      // A path value comes from the hints alone when there are some: the test keeps its own user.
      record[p.name] = hint
        ? place === 'path'
          ? hint
          : fc.oneof({ arbitrary: hint, weight: 4 }, { arbitrary: own, weight: 1 })
        : own;
      if (p.required) required.push(p.name);
    }
    return fc.record(record, { requiredKeys: required });
  };
  const bodySchema = ref.operation.requestBody?.content['application/json']?.schema;
  const body = bodySchema ? arbitraryOf(bodySchema, doc, hints.body) : fc.constant(undefined);
  return fc
    .record({ path: pick('path'), query: pick('query'), headers: pick('header'), body })
    .map((r): FuzzRequest => ({
      method: ref.method.toUpperCase(),
      template: ref.path,
      path: r.path,
      query: r.query,
      headers: r.headers,
      ...(r.body !== undefined ? { body: r.body, bodyMode: 'json' as const } : {}),
    }));
}

/** A valid request with one thing made wrong: a parameter, the body, a body field, the encoding. */
export function wrongRequests(doc: OpenApiDocument, ref: OperationRef, hints: PlaceHints) {
  const hasBody = ref.operation.requestBody !== undefined;
  const kinds = hasBody ? ['query', 'body', 'field', 'text', 'type'] : ['query'];
  if (ref.path.includes('{')) kinds.push('path');
  return fc
    .tuple(
      validRequests(doc, ref, hints),
      fc.constantFrom(...kinds),
      wrongValue,
      fc.string({ minLength: 1, maxLength: 10 }),
    )
    .map(([request, what, value, name]): FuzzRequest => {
      const out = { ...request, query: { ...request.query }, path: { ...request.path } };
      if (what === 'query') out.query[Object.keys(out.query)[0] ?? name] = value;
      if (what === 'path') out.path[Object.keys(out.path)[0]!] = stringOf(value) || ' ';
      if (what === 'body') out.body = value;
      if (what === 'field') out.body = { ...(isObject(request.body) ? request.body : {}), [name]: value };
      if (what === 'text') Object.assign(out, { body: `{"${name}": ${stringOf(value)}`, bodyMode: 'text' });
      if (what === 'type') Object.assign(out, { body: request.body ?? {}, bodyMode: 'type' });
      if (out.bodyMode === undefined && out.body !== undefined) out.bodyMode = 'json';
      return out;
    });
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const stringOf = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function fillPath(template: string, values: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(stringOf(values[name])));
}

/** Writes a generated request as fetch arguments (relative to the document's server). */
export function toFetch(base: string, request: FuzzRequest, auth: string): [string, RequestInit] {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(request.query)) if (v !== undefined) query.append(k, stringOf(v));
  const headers: Record<string, string> = { authorization: auth };
  for (const [k, v] of Object.entries(request.headers)) {
    // Header values must be visible ASCII; anything else is not a request a client can send.
    if (v !== undefined) headers[k] = stringOf(v).replace(/[^\x20-\x7e]/g, '_');
  }
  let body: string | undefined;
  if (request.bodyMode) {
    body = request.bodyMode === 'text' ? String(request.body) : JSON.stringify(request.body);
    if (request.bodyMode !== 'type') headers['content-type'] = 'application/json';
  }
  const qs = query.toString();
  const path = fillPath(request.template, request.path);
  return [`${base}${path}${qs ? `?${qs}` : ''}`, { method: request.method, headers, body }];
}

/** Checks one answer against the operation's documented responses: what is wrong, or null. */
export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, validateSchema: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    private readonly docKey: string,
    doc: OpenApiDocument,
  ) {
    this.ajv.addSchema(doc as object, docKey);
  }

  check(ref: OperationRef, status: number, contentType: string, text: string): string | null {
    if (status >= 500) return `status ${status}`;
    const response = ref.operation.responses[String(status)] ?? ref.operation.responses.default;
    if (!response) return `status ${status} is not documented`;
    const types = Object.keys(response.content ?? {});
    if (types.length === 0 || types.includes('*/*')) return null;
    const type = contentType.split(';')[0]!.trim();
    if (!types.includes(type))
      return `Content-Type ${type} is not documented for ${status} (${types.join(', ')})`;
    if (type !== 'application/json') return null;
    const validate = this.validator(
      ref,
      String(status) in ref.operation.responses ? String(status) : 'default',
    );
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return 'the body is not JSON';
    }
    if (validate(json)) return null;
    return `the body breaks the schema: ${this.ajv.errorsText(validate.errors)}`;
  }

  private validator(ref: OperationRef, status: string): ValidateFunction {
    const pointer = [
      'paths',
      ref.path,
      ref.method,
      'responses',
      status,
      'content',
      'application/json',
      'schema',
    ]
      .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    const key = `${this.docKey}#/${pointer}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile({ $ref: key });
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
