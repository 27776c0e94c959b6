import { z } from '@hono/zod-openapi';
import { HTTP_ERROR_CODES } from '../errors.js';

export const ErrorResponse = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(HTTP_ERROR_CODES).openapi({ example: 'validation_error' }),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .openapi('Error');

export function envelope<T extends z.ZodTypeAny>(data: T, withMessage = false) {
  const base = z.object({ success: z.literal(true), data });
  return withMessage ? base.extend({ message: z.string() }) : base;
}

const json = (schema: z.ZodTypeAny) => ({ 'application/json': { schema } });

/** Error responses every authenticated route may give. */
export const commonErrors = {
  400: { description: 'Validation error or invalid JSON', content: json(ErrorResponse) },
  401: { description: 'Missing or invalid API key', content: json(ErrorResponse) },
  403: { description: 'The account is not one of your inboxes', content: json(ErrorResponse) },
  404: { description: 'Not found', content: json(ErrorResponse) },
  429: { description: 'Rate limited', content: json(ErrorResponse) },
  503: {
    description: 'Storage unavailable (disk full, database busy): retry after Retry-After',
    content: json(ErrorResponse),
  },
} as const;

export function okResponse<T extends z.ZodTypeAny>(schema: T, description: string) {
  return { 200: { description, content: json(schema) } } as const;
}

export function jsonBody<T extends z.ZodTypeAny>(schema: T) {
  return { body: { content: { 'application/json': { schema } }, required: true } } as const;
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

export const UidParam = z.object({
  id: z
    .string()
    .regex(/^\d{1,15}$/, 'id must be an integer uid')
    .transform(Number)
    .openapi({ param: { name: 'id', in: 'path' }, example: '1', type: 'integer' }),
});

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
  .openapi({ type: 'integer', example: 20 });
export const isoDateQuery = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date')
  .transform((v) => new Date(v).toISOString());

export const bearerSecurity = [{ bearerAuth: [] }];
