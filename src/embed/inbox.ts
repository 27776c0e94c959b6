import type { MailboxDeps } from '../mailbox/deps.js';
import { emptyFolder } from '../mailbox/organising/empty-folder.js';
import { listEmails, readEmail } from '../mailbox/reading/read.js';
import { sendEmail } from '../mailbox/sending/send.js';
import type { InboxHelper } from './public.js';
import { ownerOfInbox } from '../mailbox/access.js';
import { waitForEmailInProcess } from './wait.js';

export function inboxHelper(deps: MailboxDeps, address: string): InboxHelper {
  const owner = () => ownerOfInbox(deps, address);
  return {
    address,
    async send(message) {
      return sendEmail(deps, await owner(), { ...message, from: address });
    },
    async list(filters = {}) {
      return listEmails(deps, await owner(), { limit: 20, ...filters, account: address });
    },
    async read(uid, folder = 'INBOX') {
      return readEmail(deps, await owner(), address, uid, folder);
    },
    waitForEmail(options = {}) {
      return waitForEmailInProcess(deps, { ...options, account: address });
    },
    async empty(folder = 'INBOX', options = {}) {
      return emptyFolder(deps, await owner(), { account: address, folder }, options);
    },
  };
}
