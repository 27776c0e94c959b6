/** Errors are values with a code; http/ and smtp/ each map them in one place. */
import type { ContractErrorCode } from '../contract/error-codes.js';
import { DatabaseUnavailable } from '../db/unavailable.js';
import { isStorageUnavailable } from '../store/unavailable.js';

export interface ErrorDetail {
  path: string;
  message: string;
  /** A refused recipient (`recipient_blocked`): the address, and why (blocked, not_allowed, suppressed). */
  address?: string;
  reason?: string;
}

export class MailroomError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The contract's codes a verb may throw: all but those only a protocol meets. */
export type ErrorCode = Exclude<
  ContractErrorCode,
  'invalid_json' | 'method_not_allowed' | 'unsupported_media_type'
>;

export class ValidationFailed extends MailroomError {
  constructor(message: string, details?: ErrorDetail[]) {
    super('validation_error', message, details);
  }
  static field(path: string, message: string): ValidationFailed {
    return new ValidationFailed(message, [{ path, message }]);
  }
}

export class NotFound extends MailroomError {
  constructor(message = 'not found') {
    super('not_found', message);
  }
}

export class Forbidden extends MailroomError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** A send refused whole because of its recipients (contract 14): one detail per refused address. */
export class RecipientBlocked extends MailroomError {
  constructor(message: string, details: ErrorDetail[]) {
    super('recipient_blocked', message, details);
  }
}

export class Conflict extends MailroomError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class TooLarge extends MailroomError {
  constructor(message: string) {
    super('payload_too_large', message);
  }
}

export class Unprocessable extends MailroomError {
  constructor(message: string) {
    super('unprocessable', message);
  }
}

/** A refusal that passes with time (a send limit, the loop guard): the doors say when to retry. */
export class TryLater extends MailroomError {
  constructor(
    code: 'rate_limited' | 'loop_detected',
    message: string,
    readonly retryAfterSeconds: number,
    details?: ErrorDetail[],
  ) {
    super(code, message, details);
  }
}

/** Sending from this inbox is paused by its owner (contract 14); receiving goes on. */
export class InboxPaused extends MailroomError {
  constructor(address: string) {
    super(
      'inbox_paused',
      `sending from ${address} is paused in its settings; receiving goes on. ` +
        'Its owner resumes it (PATCH /api/v1/accounts/{address}/settings {"paused": false}, or the dashboard)',
    );
  }
}

export class Upstream extends MailroomError {
  constructor(message: string) {
    super('upstream_error', message);
  }
}

/** The storage cannot take the work now (disk full, I/O error, database busy or down): retry later. */
export class Unavailable extends MailroomError {
  constructor(message = 'storage is unavailable right now; retry later') {
    super('unavailable', message);
  }
}

/** What a verb threw as a MailroomError: itself, Unavailable for a storage outage, else undefined. */
export function mailroomErrorOf(error: unknown): MailroomError | undefined {
  if (error instanceof MailroomError) return error;
  return isStorageUnavailable(error) || error instanceof DatabaseUnavailable ? new Unavailable() : undefined;
}
