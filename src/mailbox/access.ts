import type { InboxRow } from '../store/inboxes.js';
import type { Caller } from './caller.js';
import { ownerCaller } from './caller.js';
import type { MailboxDeps } from './deps.js';
import { Forbidden, NotFound } from './errors.js';
import type { FolderRow } from '../store/folders.js';
import type { MessageRow } from '../store/messages.js';

/**
 * The caller's inbox named by `account`, within its key's reach; 403 alike whether it exists for
 * someone else, is the user's but beyond the key's reach, or does not exist at all.
 */
export async function requireInbox(deps: MailboxDeps, caller: Caller, account: string): Promise<InboxRow> {
  const inbox = await deps.store.inboxes.findByAddress(account.trim());
  if (!inbox || !reaches(caller, inbox)) throw await notYourInbox(deps, caller, account);
  return inbox;
}

/** Whether the inbox is the caller's user's and within its key's reach. */
export function reaches(caller: Caller, inbox: InboxRow): boolean {
  return (
    inbox.user_id === caller.userId &&
    (caller.inboxes === null || caller.inboxes.includes(inbox.address.toLowerCase()))
  );
}

/** The caller's inboxes within its key's reach (all of the user's for a person or an unlimited key). */
export async function reachableInboxes(deps: MailboxDeps, caller: Caller): Promise<InboxRow[]> {
  return (await deps.store.inboxes.list(caller.userId)).filter((inbox) => reaches(caller, inbox));
}

/** The user who owns an inbox, with nothing held back (in-process calls act as the inbox's owner, with no key). */
export async function ownerOfInbox(deps: MailboxDeps, account: string): Promise<Caller> {
  const inbox = await deps.store.inboxes.findByAddress(account.trim());
  if (!inbox) throw new NotFound(`no inbox ${account} on this server`);
  return ownerCaller(inbox.user_id);
}

/** Up to this many of the caller's inboxes are named in a refusal; past it, where to list them. */
const NAMED_INBOXES = 5;

/**
 * The 403 for an `account` that is not one of the caller's inboxes (contract 3). It names the
 * account asked for and what the caller does reach, so a wrong key or a typo shows at once. It is
 * made of what was asked and the caller's own inboxes only: the same words whether the account
 * exists for someone else or not at all.
 */
export async function notYourInbox(deps: MailboxDeps, caller: Caller, account: string): Promise<Forbidden> {
  const asked = account.trim().slice(0, 254);
  const shown = /^[^\s"\p{C}]+$/u.test(asked) ? asked : JSON.stringify(asked);
  const yours = (await reachableInboxes(deps, caller)).map((inbox) => inbox.address);
  const reach =
    yours.length === 0
      ? 'you have no inbox yet'
      : yours.length === 1
        ? `your inbox is ${yours[0]}`
        : yours.length <= NAMED_INBOXES
          ? `your inboxes are ${yours.slice(0, -1).join(', ')} and ${yours.at(-1)}`
          : `you have ${yours.length} inboxes (GET /api/v1/accounts, or MCP's list_inboxes, lists them)`;
  return new Forbidden(`account ${shown} is not one of your inboxes; ${reach}`);
}

/** Names other clients give a standard folder under another name (source 1: "Spam or Junk"). */
const SPECIAL_USE_NAMES = new Map([['junk', '\\Junk']]); // a Map: `__proto__` is a folder name too

/** A folder by name, case-insensitively, or the standard folder another client's name means. */
async function findFolder(deps: MailboxDeps, inbox: InboxRow, name: string): Promise<FolderRow | undefined> {
  const specialUse = SPECIAL_USE_NAMES.get(name.toLowerCase());
  return (
    (await deps.store.folders.find(inbox.id, name)) ??
    (specialUse ? await deps.store.folders.findBySpecialUse(inbox.id, specialUse) : undefined)
  );
}

export async function requireFolder(deps: MailboxDeps, inbox: InboxRow, name: string): Promise<FolderRow> {
  const folder = await findFolder(deps, inbox, name);
  if (!folder) throw new NotFound(`no folder named ${JSON.stringify(name)} in ${inbox.address}`);
  return folder;
}

/** folders.findWithInbox of `account` and folder `name`, started before the caller was known. */
export interface InboxFolderLookup {
  account: string;
  folder: string;
  found: Promise<{ inbox: InboxRow; folder: FolderRow | undefined } | undefined>;
}

/**
 * Starts requireInboxFolder's look-up before the caller is known (its owner is checked when
 * requireInboxFolder is given it). A failure is left for requireInboxFolder to report.
 */
export function startInboxFolderLookup(
  deps: MailboxDeps,
  account: string,
  folder: string,
): InboxFolderLookup {
  const found = deps.store.folders.findWithInbox(account.trim(), folder);
  found.catch(() => {});
  return { account, folder, found };
}

/**
 * requireInbox and requireFolder, in one query when the folder is found by its name; that query
 * may have been started already (`started`, when it is for the same account and folder).
 */
export async function requireInboxFolder(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  name: string,
  started?: InboxFolderLookup,
): Promise<{ inbox: InboxRow; folder: FolderRow }> {
  const found = await (started?.account === account && started.folder === name
    ? started.found
    : startInboxFolderLookup(deps, account, name).found);
  if (!found || !reaches(caller, found.inbox)) throw await notYourInbox(deps, caller, account);
  return { inbox: found.inbox, folder: found.folder ?? (await requireFolder(deps, found.inbox, name)) };
}

/** A message by uid, optionally required to be in a folder. */
export async function requireMessage(
  deps: MailboxDeps,
  inbox: InboxRow,
  uid: number,
  folderName?: string,
): Promise<{ message: MessageRow; folder: FolderRow }> {
  const message = await deps.store.messages.getByUid(inbox.id, uid);
  const folder = message ? await deps.store.folders.get(message.folder_id) : undefined;
  if (!message || !folder) throw new NotFound(`no email with uid ${uid} in ${inbox.address}`);
  if (folderName !== undefined && (await findFolder(deps, inbox, folderName))?.id !== folder.id) {
    throw new NotFound(`no email with uid ${uid} in folder ${folderName}`);
  }
  return { message, folder };
}
