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
