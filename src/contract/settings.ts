import { z } from '@hono/zod-openapi';
import { atLeastOneOf } from './common.js';

/** How an inbox may send (contract 15). */
export const SEND_MODES = ['autonomous', 'approve_new', 'approve_all', 'read_only'] as const;

const limit = z
  .number({ error: 'a limit is a whole number of recipients, 0 for none' })
  .int('a limit is a whole number of recipients, 0 for none')
  .min(0, 'a limit is 0 (none) or more')
  .max(1_000_000_000, 'a limit is at most 1000000000');

/** An inbox's settings (contract 14): `data.settings` of GET and PATCH. */
export const InboxSettings = z
  .object({
    mode: z.enum(SEND_MODES).openapi({
      description:
        'autonomous: sends go out; approve_new: a send to anyone the inbox never received mail from nor sent mail to waits ' +
        'for approval; approve_all: every send waits; read_only: sends refused (403)',
    }),
    paused: z.boolean().openapi({ description: 'sends refused with 409 inbox_paused; receiving goes on' }),
    limits: z
      .object({ perHour: z.number().int(), perDay: z.number().int() })
      .openapi({ description: 'recipients it may send to in any hour, in any 24 hours; 0: no limit' }),
    sent: z.object({ lastHour: z.number().int(), lastDay: z.number().int() }).openapi({
      description: 'recipients it sent to in the last hour and the last 24 hours (refused sends not counted)',
    }),
  })
  .openapi('InboxSettings');

export type InboxSettingsView = z.infer<typeof InboxSettings>;

export const UpdateInboxSettingsBody = z
  .strictObject({
    mode: z.enum(SEND_MODES).optional(),
    paused: z.boolean({ error: 'paused is true or false' }).optional(),
    limits: z
      .strictObject({
        perHour: limit.nullable().optional(),
        perDay: limit.nullable().optional(),
      })
      .optional()
      .openapi({
        description: "each limit a number of recipients (0: none), or null for the server's default",
      }),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), 'give at least one field to change')
  .openapi('UpdateInboxSettings', atLeastOneOf(['mode', 'paused', 'limits']));

export type InboxSettingsChanges = z.infer<typeof UpdateInboxSettingsBody>;

export const SettingsParams = z.object({
  address: z
    .string()
    .min(1)
    .max(320)
    .openapi({ param: { name: 'address', in: 'path' }, example: 'agent@mailroom.test' }),
});
