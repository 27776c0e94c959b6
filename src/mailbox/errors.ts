/** Errors are values with a code; http/ and smtp/ each map them in one place. */
import { DatabaseUnavailable } from '../db/unavailable.js';
import { isStorageUnavailable } from '../store/unavailable.js';

export interface ErrorDetail {
  path: string;
  message: string;
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

export type ErrorCode =
  | 'validation_error'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unprocessable'
  | 'rate_limited'
  | 'upstream_error'
  | 'unavailable'
  | 'internal_error';

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
