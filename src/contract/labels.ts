import { z } from '@hono/zod-openapi';
import {
  LABEL_COLOR,
  LABEL_DESCRIPTION_MAX,
  LABEL_NAME_MAX,
  LABEL_PALETTE,
  labelNameProblem,
} from '../mailbox/organising/labels.js';
import { atLeastOneOf, limitQuery } from './common.js';

export const Label = z
  .object({
    id: z.string().openapi({ format: 'uuid' }),
    name: z.string(),
    color: z.string().openapi({ example: '#6366f1' }),
    description: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Label');

const name = z
  .string({ error: (issue) => (issue.input === undefined ? 'name is required' : 'name must be a string') })
  .superRefine((value, ctx) => {
    const problem = labelNameProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .openapi({
    minLength: 1,
    maxLength: LABEL_NAME_MAX,
    description: `1 to ${LABEL_NAME_MAX} characters after trimming; unique per user whatever the case`,
    example: 'Invoices',
  });

const color = z
  .string({ error: 'color must be a string' })
  .regex(LABEL_COLOR, 'color must be #RRGGBB (six hex digits)')
  .openapi({
    example: '#22c55e',
    description: `#RRGGBB, stored lower-case; when omitted on create one of ${LABEL_PALETTE.join(', ')} at random`,
  });

const description = z
  .string({ error: 'description must be a string' })
  .refine(
    (v) => [...v].length <= LABEL_DESCRIPTION_MAX,
    `description must be at most ${LABEL_DESCRIPTION_MAX} characters`,
  )
  .nullable()
  .openapi({ maxLength: LABEL_DESCRIPTION_MAX });

export const CreateLabelBody = z.strictObject({
  name,
  color: color.optional(),
  description: description.optional(),
});

export const UpdateLabelBody = z
  .strictObject({ name: name.optional(), color: color.optional(), description: description.optional() })
  .refine((b) => b.name !== undefined || b.color !== undefined || b.description !== undefined, {
    message: 'give at least one of name, color, description',
  })
  .openapi(atLeastOneOf(['name', 'color', 'description']));

export const labelRef = z
  .string()
  .min(1)
  .max(200)
  .openapi({ description: 'a label id, or its name (case-insensitive)', example: 'Invoices' });

export const LabelIdParam = z.object({ id: labelRef.openapi({ param: { name: 'id', in: 'path' } }) });

export const ListLabelsQuery = z.object({ limit: limitQuery, cursor: z.string().optional() });
