import { ErrorResponse, json } from './common.js';

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
