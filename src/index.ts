/**
 * `mailroom-server`: a whole Mailroom in-process, for test suites and embedding. Its types name
 * only this package's own (src/embed/public.ts, src/client/types.ts), so a consumer's `tsc`
 * passes without skipLibCheck.
 */
import { createMailroom as createServer } from './mailroom.js';
import type { Mailroom, MailroomOptions } from './embed/public.js';

/** A Mailroom on the given settings; `start()` opens its data and listens (`httpPort: 0` picks a free port). */
export function createMailroom(options: MailroomOptions = {}): Mailroom {
  return createServer(options);
}

export type {
  BootstrapResult,
  InboxHelper,
  InboxListFilters,
  Mailroom,
  MailroomOptions,
  MailroomSettings,
  ResetOptions,
} from './embed/public.js';
export * from './client/types.js';
export { EmailWaitTimeout, DEFAULT_WAIT_MS } from './client/waiting.js';
export type { WaitForEmailOptions, SeenEmail, ListFilters } from './client/waiting.js';
