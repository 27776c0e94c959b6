import type { Email, SendResult } from '../client/types.js';
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
      return (await sendEmail(deps, await owner(), { ...message, from: address })) as SendResult;
    },
    async list(filters = {}) {
      const page = await listEmails(deps, await owner(), { limit: 20, ...filters, account: address });
      return page as { emails: Email[]; nextCursor: string | null };
    },
    async read(uid, folder = 'INBOX') {
      return (await readEmail(deps, await owner(), address, uid, folder)) as Email;
    },
    waitForEmail(options = {}) {
      return waitForEmailInProcess(deps, { ...options, account: address });
    },
    async empty(folder = 'INBOX', options = {}) {
      return emptyFolder(deps, await owner(), { account: address, folder }, options);
    },
  };
}
