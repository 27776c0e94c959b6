import type { MailboxDeps } from '../mailbox/deps.js';

export interface AppEnv {
  Variables: {
    userId: number;
    keyId: string;
    deps: MailboxDeps;
  };
}
