import { z } from '@hono/zod-openapi';
import { ERROR_CODES } from './error-codes.js';

export const ErrorResponse = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(ERROR_CODES).openapi({ example: 'validation_error' }),
      message: z.string(),
      details: z
        .array(
          z.object({
            path: z.string(),
            message: z.string(),
            address: z.string().optional().openapi({ description: 'recipient_blocked: the refused address' }),
            reason: z
              .enum(['blocked', 'not_allowed', 'suppressed'])
              .optional()
              .openapi({ description: 'recipient_blocked: why the address was refused' }),
          }),
        )
        .optional(),
    }),
  })
  .openapi('Error');

export function envelope<T extends z.ZodTypeAny>(data: T, withMessage = false) {
  const base = z.object({ success: z.literal(true), data });
  return withMessage ? base.extend({ message: z.string() }) : base;
}

export const account = z
  .string()
  .min(1, 'account is required')
  .openapi({ example: 'agent@mailroom.test', description: 'the inbox address' });

export const AccountQuery = z.object({ account });

/**
 * Contract 13: on a route with a JSON body, `account` may be given in the query or in the body.
 * Both places declare it optional; validateRequest checks that one is given and that two agree,
 * and hands the handler the result as `c.var.account`.
 */
export const accountEither = z.string().min(1, 'account must not be empty').optional().openapi({
  example: 'agent@mailroom.test',
  description: 'the inbox address: in the query or in the JSON body (required in one; both must agree)',
});

/** The query of a route whose JSON body may carry `account` instead. */
export const EitherAccountQuery = z.object({ account: accountEither });

/** A uid in the path: digits, at least 1, handed to the route as a number. */
export function uidPath(name: string) {
  return z
    .string()
    .regex(/^[1-9]\d{0,14}$/, `${name} must be a positive integer uid`)
    .transform(Number)
    .openapi({
      param: { name, in: 'path' },
      type: 'integer',
      minimum: 1,
      maximum: 999_999_999_999_999,
      example: 1,
    } as never);
}

export const UidParam = z.object({ id: uidPath('id') });

export const booleanQuery = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .openapi({ type: 'boolean' });

export const limitQuery = z.coerce
  .number()
  .int()
  .min(1)
  .max(100)
  .default(20)
  .openapi({ type: 'integer', minimum: 1, maximum: 100, default: 20, example: 20 });
export const isoDateQuery = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date')
  .transform((v) => new Date(v).toISOString())
  .openapi({
    type: 'string',
    format: 'date-time',
    description: 'an ISO 8601 date-time (a date alone means its midnight UTC)',
    example: '2025-01-31T00:00:00Z',
  });

/**
 * JSON Schema for "at least one of these fields" (non-empty strings where `filled`), which a
 * zod refine cannot tell the OpenAPI generator: `{anyOf: [{required: [a]}, ...]}`.
 */
export function atLeastOneOf(fields: string[], filled: string[] = []) {
  return {
    anyOf: fields.map((field) => ({
      required: [field],
      ...(filled.includes(field) ? { properties: { [field]: { minLength: 1 } } } : {}),
    })),
  };
}
