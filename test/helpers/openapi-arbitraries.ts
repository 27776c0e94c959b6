import fc from 'fast-check';

/** The parts of JSON Schema 2020-12 (as OpenAPI 3.1 writes it) the generator reads. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

/** Values to prefer for a field, by name: real ids, the test's own inbox, a local webhook URL. */
export type Hints = Record<string, fc.Arbitrary<unknown> | undefined>;

/** Bounds that keep every generated request small: the test sends hundreds of them. */
const MAX_STRING = 24;
const MAX_ITEMS = 3;

/**
 * A fast-check arbitrary of values that the schema describes, mostly valid: a field with a hint
 * takes the hinted value nine times in ten, the schema's own value otherwise.
 */
export function arbitraryOf(schema: Schema, root: object, hints: Hints = {}): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, root);
  if (resolved.const !== undefined) return fc.constant(resolved.const);
  if (resolved.enum) return fc.constantFrom(...resolved.enum);
  const union = resolved.oneOf ?? (resolved.properties ? undefined : resolved.anyOf);
  if (union) return fc.oneof(...union.map((s) => arbitraryOf(s, root, hints)));
  if (Array.isArray(resolved.type)) {
    return fc.oneof(...resolved.type.map((type) => arbitraryOf({ ...resolved, type }, root, hints)));
  }
  switch (resolved.type) {
    case 'string':
      return stringOf(resolved);
    case 'integer':
      return fc.integer({ min: resolved.minimum ?? -5, max: Math.min(resolved.maximum ?? 2000, 2_000_000) });
    case 'number':
      return fc.double({ min: resolved.minimum ?? -1e6, max: resolved.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(arbitraryOf(resolved.items ?? {}, root, hints), {
        minLength: resolved.minItems ?? 0,
        maxLength: Math.max(resolved.minItems ?? 0, Math.min(resolved.maxItems ?? MAX_ITEMS, MAX_ITEMS)),
      });
    case 'object':
      return objectOf(resolved, root, hints);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectOf(schema: Schema, root: object, hints: Hints): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  if (Object.keys(properties).length === 0) {
    return fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 2 });
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    const own = arbitraryOf(property, root, hints);
    const hint = hints[name];
    record[name] = hint ? fc.oneof({ arbitrary: hint, weight: 9 }, { arbitrary: own, weight: 1 }) : own;
  }
  return fc.record(record, { requiredKeys: schema.required ?? [] });
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'date-time') {
    return fc
      .date({ min: new Date('2000-01-01'), max: new Date('2040-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? MAX_STRING, MAX_STRING));
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' });
}

export function resolve(schema: Schema, root: object): Schema {
  let current = schema;
  for (let depth = 0; current.$ref && depth < 10; depth++) {
    const path = current.$ref.replace(/^#\//, '').split('/').map(unescapePointer);
    current = path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], root) as Schema;
  }
  return current;
}

const unescapePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** Values of the wrong kind for any field: the other JSON types, empty and odd strings. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('', ' ', '0', '-1', 'null', '../..', '%00', 'ä'.repeat(300), 'true', '[]', '{}'),
  fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
);
