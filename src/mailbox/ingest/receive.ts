import { isAutomatic } from '../../mail/automatic.js';
import type { ParsedEmail } from '../../mail/types.js';
import type { ListEntryRow } from '../../store/address-lists.js';
import type { EventRow } from '../../store/events.js';
import type { FolderRow } from '../../store/folders.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { Store } from '../../store/index.js';
import type { MailboxDeps } from '../deps.js';
import type { SpamCheckView } from '../reading/email-view.js';
import { releaseAfterLarge } from './release-large.js';
import { appendEmailEvent, fileMessage, screeningOf, viewOfFiled } from './file-message.js';
import { countScreening } from './screening-outcomes.js';
import { expectThreadLookup } from './threading.js';
import { fromFilesAsSpam, receiveListsOf } from '../policy/receive-check.js';
import { suppressReported } from '../policy/suppressions.js';

export interface InboundMessage {
  /** Handed over: receiveMessage may move it to the ingest thread, so it is not read after. */
  raw: Buffer;
  /** Distinct local inboxes; the message is stored once for each. */
  inboxes: InboxRow[];
  /** The INBOX folder of each inbox, where the caller read it already (SMTP, with the recipient). */
  inboxFolders?: (FolderRow | undefined)[];
  /** The receive lists of each inbox, where the caller read them already (SMTP, at RCPT TO). */
  receiveLists?: (ListEntryRow[] | undefined)[];
  authResults?: unknown;
  /** The envelope sender was null (`MAIL FROM:<>`): a bounce or another automatic reply. */
  nullSender?: boolean;
  /** File into Spam instead of INBOX for every inbox (rspamd's action, or DMARC). */
  spam?: boolean;
  /** rspamd's verdict, stored on each copy, when it was asked. */
  spamCheck?: SpamCheckView;
  receivedAt?: Date;
  /** The stored source of `raw`, where this transaction filed a copy already (a send's Sent copy). */
  sourceId?: number;
}

export interface Filed {
  inbox: InboxRow;
  uid: number;
}

/**
 * Mail arriving for local inboxes (over SMTP, or sent by another local inbox). Resolves only
 * after the commit that holds every copy and its `email.received` event.
 */
export async function receiveMessage(deps: MailboxDeps, message: InboundMessage): Promise<Filed[]> {
  // Read before the raw message may move to the ingest thread.
  const size = message.raw.length;
  try {
    return await fileReceived(deps, message);
  } finally {
    releaseAfterLarge(size);
  }
}

async function fileReceived(deps: MailboxDeps, message: InboundMessage): Promise<Filed[]> {
  const parsed = await deps.parser.parse(message.raw);
  // Looked up before the group commit, side by side with the other sessions' work: inside it each
  // lookup is one more round trip in the chain every message of a batch waits on (PostgreSQL).
  const folders = await inboundFolders(deps, message, parsed);
  // Before the raw message may move to the ingest thread.
  await suppressReported(deps, message.inboxes, message.raw);
  const filed = await deps.ingest.file(deps, message, parsed, folders);
  // Mail filed into Spam for all counts as `spam` (smtp/deliver.ts); `review` is mail an agent reads.
  if (!message.spam && screeningOf(parsed, message.authResults, message.spamCheck)?.verdict === 'review') {
    await countScreening(deps, 'review');
  }
  return filed;
}

/** Where received mail is filed: on the ingest thread, or inline on this one. */
export interface Ingest {
  /**
   * Files `message` into `folders` (inboundFolders) in a group commit and publishes its events;
   * resolves after that commit.
   */
  file(
    deps: MailboxDeps,
    message: InboundMessage,
    parsed: ParsedEmail,
    folders: FolderRow[],
  ): Promise<Filed[]>;
  /**
   * Starts its thread (the server's open(), once the secret is loaded); resolves once it is ready
   * to file, or has failed to start (it is then started again).
   */
  start(): Promise<void>;
  /** Lets what it holds finish for up to `graceMs`, then ends its thread. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Filing on this thread's connection: an in-memory database (a second connection cannot open
 * it), MAILROOM_INGEST_THREAD off, the CLI, and the ingest thread itself.
 */
export const inlineIngest: Ingest = {
  async file(deps, message, parsed, folders) {
    const events: EventRow[] = [];
    const filed = await deps.store.groupCommit.submit(
      () => {
        events.length = 0;
        return fileForEach(deps, message, parsed, events, folders);
      },
      () => expectThreadLookups(deps.store, message, parsed),
    );
    deps.bus.publish(events);
    return filed;
  },
  start: async () => {},
  close: async () => {},
};

/**
 * The folder each inbox files the message into, in the order of `message.inboxes`: Spam when
 * the message is spam for all (DMARC) or its header From is refused by that inbox's receive
 * lists, else INBOX. INBOX and Spam cannot be removed or renamed, so a lookup made before the
 * transaction that files the message still holds in it.
 */
export async function inboundFolders(
  deps: MailboxDeps,
  message: InboundMessage,
  parsed: ParsedEmail,
): Promise<FolderRow[]> {
  return Promise.all(
    message.inboxes.map(async (inbox, i) => {
      const lists = message.receiveLists?.[i] ?? (await receiveListsOf(deps, inbox));
      const spam = message.spam || fromFilesAsSpam(lists, inbox, parsed.from?.address);
      const folderName = spam ? 'Spam' : 'INBOX';
      const known = spam ? undefined : message.inboxFolders?.[i];
      const folder = known ?? (await deps.store.folders.find(inbox.id, folderName));
      if (!folder) throw new Error(`inbox ${inbox.address} has no ${folderName} folder`);
      return folder;
    }),
  );
}

/** Says the thread look-ups fileForEach will make, so a group commit makes its batch's at once. */
export function expectThreadLookups(
  store: Store,
  message: Pick<InboundMessage, 'inboxes' | 'receivedAt'>,
  parsed: ParsedEmail,
): void {
  const date = parsed.date ?? message.receivedAt ?? new Date();
  for (const inbox of message.inboxes) expectThreadLookup(store, inbox.id, parsed, date);
}

/**
 * The core, for callers already inside a transaction (local delivery of a send). One inbox after
 * another; `folders` as inboundFolders answers them, looked up here if not given.
 */
export async function fileForEach(
  deps: MailboxDeps,
  message: InboundMessage,
  parsed: ParsedEmail,
  events: EventRow[],
  folders?: FolderRow[],
): Promise<Filed[]> {
  const receivedAt = message.receivedAt ?? new Date();
  const filed: Filed[] = [];
  const into = folders ?? (await inboundFolders(deps, message, parsed));
  const automatic = message.nullSender === true || isAutomatic(parsed.headers);
  await deps.store.inboxes.holdInOrder(message.inboxes.map((inbox) => inbox.id));
  // One source for every copy: the first copy stores it, the others point at it.
  let sourceId = message.sourceId;
  for (const [i, inbox] of message.inboxes.entries()) {
    const folder = into[i]!;
    const row = await fileMessage(deps.store, {
      inbox,
      folder,
      parsed,
      raw: message.raw,
      flags: [],
      receivedAt,
      authResults: message.authResults,
      spamCheck: message.spamCheck,
      autoReply: automatic,
      sourceId,
    });
    sourceId = row.source_id;
    events.push(
      await appendEmailEvent(
        deps.store,
        'email.received',
        inbox,
        row,
        viewOfFiled(row, folder, parsed, false),
      ),
    );
    filed.push({ inbox, uid: row.uid });
  }
  return filed;
}
