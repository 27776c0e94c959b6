import type { z } from '@hono/zod-openapi';
import { ErrorResponse } from '../contract/common.js';

// The OpenAPI side of a route that is HTTP's alone: statuses, media types, security.

export const json = (schema: z.ZodTypeAny) => ({ 'application/json': { schema } });

/** Error responses every authenticated route may give. */
export const commonErrors = {
  400: { description: 'Validation error or invalid JSON', content: json(ErrorResponse) },
  401: { description: 'Missing or invalid API key', content: json(ErrorResponse) },
  403: {
    description: 'The key lacks the permission this route needs, or the account is not one of its inboxes',
    content: json(ErrorResponse),
  },
  404: { description: 'Not found', content: json(ErrorResponse) },
  429: { description: 'Rate limited', content: json(ErrorResponse) },
  503: {
    description: 'Storage unavailable (disk full, database busy): retry after Retry-After',
    content: json(ErrorResponse),
  },
} as const;

/** A 200 documented with its concrete schema, so async handlers have a return type they can satisfy. */
export function okResponse<T extends z.ZodTypeAny>(schema: T, description: string) {
  return { 200: { description, content: { 'application/json': { schema } } } };
}

/** A send's answers: 200 sent, 202 kept in Outbox (waiting for approval or for its sendAt). */
export function sendResponses<T extends z.ZodTypeAny>(schema: T, description: string) {
  return {
    200: { description, content: { 'application/json': { schema } } },
    202: {
      description:
        'Not sent yet: kept in Outbox, waiting for approval (status pending_approval, approvalId) or for its sendAt (status scheduled)',
      content: { 'application/json': { schema } },
    },
  };
}

/** 200, or 202 when the send waits in Outbox (contract 15). */
export const sendStatus = (result: { status?: string }): 200 | 202 => (result.status ? 202 : 200);

export function jsonBody<T extends z.ZodTypeAny>(schema: T) {
  return { body: { content: { 'application/json': { schema } }, required: true } } as const;
}

/** Errors of routes that change a connected (IMAP) mailbox on its server first. */
export const remoteErrors = {
  422: {
    description: 'The connected mailbox cannot do this now (sync not running, folder missing on the server)',
    content: json(ErrorResponse),
  },
  502: {
    description: 'The IMAP or SMTP server refused or failed; nothing was changed',
    content: json(ErrorResponse),
  },
} as const;

export const bearerSecurity = [{ bearerAuth: [] }];
