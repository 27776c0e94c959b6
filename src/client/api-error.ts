import type { ApiErrorBody, ErrorCode } from './types.js';

/** An error answer of the API, as the client's helpers throw it: status, code, message, details. */
export class MailroomApiError extends Error {
  override readonly name = 'MailroomApiError';
  readonly status: number;
  readonly code: ErrorCode | 'unknown';
  readonly details: { path: string; message: string }[];

  constructor(status: number, body: unknown) {
    const error = (body as Partial<ApiErrorBody> | undefined)?.error;
    super(error ? `${status} ${error.code}: ${error.message}` : `the API answered ${status}`);
    this.status = status;
    this.code = error?.code ?? 'unknown';
    this.details = error?.details ?? [];
  }
}
