import type { FolderRow } from '../store/folders.js';
import type { InboxRow } from '../store/inboxes.js';
import type { MessageRow } from '../store/messages.js';
import type { MailboxDeps } from './deps.js';
import { Unprocessable } from './errors.js';
import type { RemoteBackends, RemoteMailbox } from './remote.js';

/** The remote mailbox behind a connected inbox, or null for a hosted one. */
export function remoteOf(deps: MailboxDeps, inbox: InboxRow): RemoteMailbox | null {
  if (inbox.kind !== 'imap') return null;
  return deps.remote.of(inbox);
}

/**
 * The remote where no sync runs (the CLI, the ingest thread): a connected inbox's mail cannot
 * be changed from here, nor a mailbox connected; a change of the connected inboxes waits for the
 * server's sync to see it.
 */
export const noSync: RemoteBackends = {
  of(inbox) {
    throw new Unprocessable(`${inbox.address} is a connected mailbox and sync is not running`);
  },
  verify() {
    return Promise.reject(
      new Unprocessable('connecting a mailbox needs the IMAP sync, and it is not running here'),
    );
  },
  inboxesChanged() {},
};

/** The remote UID a write needs; mail not yet seen on the server cannot be changed there. */
export function remoteUidOf(message: Pick<MessageRow, 'uid' | 'remote_uid'>): number {
  if (message.remote_uid === null) {
    throw new Unprocessable(
      `email ${message.uid} is not on the mail server yet; try again after the next sync`,
    );
  }
  return message.remote_uid;
}

/** The remote path of a folder a write needs. */
export function requireRemoteFolder(folder: FolderRow): FolderRow & { remote_path: string } {
  if (!folder.remote_path) {
    throw new Unprocessable(`folder ${folder.name} does not exist on the mail server`);
  }
  return folder as FolderRow & { remote_path: string };
}
