import type { MailboxDeps } from '../mailbox/deps.js';
import { resetEverything, resetMailboxes } from '../mailbox/operations/reset.js';
import { inboxHelper } from './inbox.js';
import type { Mailroom } from './public.js';
import { waitForEmailInProcess } from './wait.js';

export type SuiteHelpers = Pick<Mailroom, 'waitForEmail' | 'reset' | 'inbox'>;

/**
 * The test suites' door on the object createMailroom returns: each helper calls the mailbox verbs
 * the HTTP routes call, as the inbox's owner, without a key or a socket. `bootstrapAgain` is the
 * server's first-start bootstrap, run after `reset({ all: true })`.
 */
export function suiteHelpers(deps: MailboxDeps, bootstrapAgain: () => Promise<void>): SuiteHelpers {
  return {
    waitForEmail: (options) => waitForEmailInProcess(deps, options),
    async reset(options = {}) {
      if (!options.all) return resetMailboxes(deps);
      await resetEverything(deps);
      await bootstrapAgain();
    },
    inbox: (address) => inboxHelper(deps, address),
  };
}
