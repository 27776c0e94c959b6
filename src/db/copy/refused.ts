/**
 * The copy cannot start, or must not go on: a source that is not there, a target that already
 * holds mail, a database that cannot be reached. One line; `code` is the error code the command
 * reports (`not_found`, `conflict`, `config_error`; `internal_error` when the copied
 * counts do not match, which is a bug).
 */
export class CopyRefused extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict' | 'config_error' | 'internal_error',
    message: string,
  ) {
    super(message);
  }
}
