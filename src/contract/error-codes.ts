/**
 * Every code an error may carry (contract 3), whichever door answers: the mailbox's own
 * (mailbox/errors.ts) and the ones only a protocol can meet (bad JSON, a wrong method...).
 * Each door maps them to its own form in one place: http/errors.ts to HTTP statuses.
 */
export const ERROR_CODES = [
  'validation_error',
  'invalid_json',
  'unauthorized',
  'forbidden',
  'recipient_blocked',
  'not_found',
  'method_not_allowed',
  'conflict',
  'inbox_paused',
  'payload_too_large',
  'unsupported_media_type',
  'unprocessable',
  'rate_limited',
  'loop_detected',
  'upstream_error',
  'unavailable',
  'internal_error',
] as const;

export type ContractErrorCode = (typeof ERROR_CODES)[number];
