import type { z } from '@hono/zod-openapi';
import type { ErrorDetail } from '../mailbox/errors.js';
import { ValidationFailed } from '../mailbox/errors.js';
import { unknownFieldMessage } from './field-suggestion.js';

// The words of a validation_error (contract 3), one copy for every door: the HTTP API says where
// a field was looked for (query, path, body); an MCP tool has only its arguments, so says none.

/** Where a request field was looked for, as a caller would name it. */
export type RequestPart = 'query' | 'path' | 'body';

const PART_NAMES: Record<RequestPart, string> = {
  query: 'the query string',
  path: 'the path',
  body: 'the JSON body',
};

type RawIssue = Parameters<z.core.$ZodErrorMap>[0];

/**
 * Messages that say what to fix, for the issues zod words for a programmer ("Invalid input:
 * expected string, received undefined"), naming the place looked in when `part` is given. A
 * message a schema sets itself still wins. An unrecognized_keys issue gets one line per unknown
 * field, each with the field meant when one is close; zodDetails makes each line a detail.
 */
export function requestErrorMap(part?: RequestPart): z.core.$ZodErrorMap {
  const where = part ? ` (in ${PART_NAMES[part]})` : '';
  return (issue: RawIssue) => {
    const name = issue.path?.length ? String(issue.path[issue.path.length - 1]) : undefined;
    if (issue.code === 'unrecognized_keys') {
      const shape = (issue.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
      const fields = shape ? Object.keys(shape) : [];
      return issue.keys.map((key) => unknownFieldMessage(key, fields)).join('\n');
    }
    if (name === undefined) return undefined;
    if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && issue.input === undefined) {
      return `${name} is required${where}`;
    }
    if (issue.code === 'invalid_type') {
      // A coerced query value that is no number arrives here as NaN, its text already gone.
      if (Number.isNaN(issue.input)) return `${name} must be ${article(issue.expected)}`;
      return `${name} must be ${article(issue.expected)}, not ${describe(issue.input)}`;
    }
    if (issue.code === 'too_big' || issue.code === 'too_small') return sizeMessage(name, issue);
    if (issue.code === 'invalid_union') {
      const kinds = new Set(
        issue.errors.flat().flatMap((sub) => (sub.code === 'invalid_type' ? [sub.expected] : [])),
      );
      if (
        kinds.size > 0 &&
        !kinds.has(typeof issue.input) &&
        !(Array.isArray(issue.input) && kinds.has('array'))
      ) {
        return `${name} must be ${[...kinds].map(article).join(' or ')}, not ${describe(issue.input)}`;
      }
    }
    return undefined;
  };
}

/** One detail per problem: `path` names the field (after `prefix`), `message` what to fix. */
export function zodDetails(error: z.ZodError, prefix = ''): ErrorDetail[] {
  const pathOf = (segments: PropertyKey[]) =>
    [prefix, ...segments.map(String)].filter(Boolean).join('.') || prefix || '(body)';
  return error.issues.flatMap((issue) => {
    // One detail per unknown field, its line of the message (see requestErrorMap).
    if (issue.code === 'unrecognized_keys') {
      const lines = issue.message.split('\n');
      return issue.keys.map((key, i) => ({
        path: pathOf([...issue.path, key]),
        message: lines.length === issue.keys.length ? lines[i]! : `unknown field ${JSON.stringify(key)}`,
      }));
    }
    return [{ path: pathOf(issue.path), message: issue.message }];
  });
}

/** The error's message: the first problem, and how many more the details list. */
export function validationMessage(details: ErrorDetail[]): string {
  const [first] = details;
  const more = details.length > 1 ? ` (and ${details.length - 1} more: see details)` : '';
  return first ? `${first.path}: ${first.message}${more}` : 'invalid input';
}

type SizeIssue = Extract<RawIssue, { code: 'too_big' | 'too_small' }>;

const UNITS: Record<string, [one: string, many: string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  file: ['byte', 'bytes'],
};

/**
 * A limit in the caller's words ("subject takes at most 2,000 characters; it has 2,001") instead
 * of zod's ("Too big: expected string to have <=2000 characters").
 */
function sizeMessage(name: string, issue: SizeIssue): string {
  const big = issue.code === 'too_big';
  const bound = Number(big ? issue.maximum : issue.minimum);
  const exclusive = issue.inclusive === false;
  const limit = exclusive ? (big ? bound - 1 : bound + 1) : bound;
  const unit = UNITS[issue.origin];
  if (!unit) {
    const compare = exclusive ? (big ? 'less than' : 'more than') : big ? 'at most' : 'at least';
    return `${name} must be ${compare} ${(exclusive ? bound : limit).toLocaleString('en-US')}`;
  }
  if (!big && limit === 1) return `${name} must not be empty`;
  const count = sizeOf(issue.input);
  const has = count === undefined ? '' : `; it has ${count.toLocaleString('en-US')}`;
  const words = `${limit.toLocaleString('en-US')} ${limit === 1 ? unit[0] : unit[1]}`;
  return `${name} takes ${big ? 'at most' : 'at least'} ${words}${has}`;
}

function sizeOf(input: unknown): number | undefined {
  if (typeof input === 'string') return input.length; // UTF-16 units, as zod counted them
  if (Array.isArray(input)) return input.length;
  if (input instanceof Set) return input.size;
  return undefined;
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describe(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  return article(typeof input);
}

/**
 * Input from a door without a validator of its own (the dashboard's forms) through a contract
 * schema: its limits and its words, as the API gives them, or ValidationFailed naming each problem.
 */
export function parseWithContract<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input, { error: requestErrorMap() });
  if (parsed.success) return parsed.data;
  const details = zodDetails(parsed.error);
  throw new ValidationFailed(validationMessage(details), details);
}
