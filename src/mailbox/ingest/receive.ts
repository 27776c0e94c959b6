import type { ParsedEmail } from '../../mail/types.js';
import type { EventRow } from '../../store/events.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';
import { releaseAfterLarge } from './release-large.js';
import { appendEmailEvent, fileMessage, viewOfFiled } from './file-message.js';
import { parseInbound } from './parse-message.js';

export interface InboundMessage {
  /** Handed over: receiveMessage may move it to the ingest thread, so it is not read after. */
  raw: Buffer;
  /** Distinct local inboxes; the message is stored once for each. */
  inboxes: InboxRow[];
  authResults?: unknown;
  /** File into Spam instead of INBOX (DMARC reject). */
  spam?: boolean;
  receivedAt?: Date;
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
  const parsed = await parseInbound(deps, message.raw);
  if (deps.ingest) {
    const reply = await deps.ingest.submit({
      raw: message.raw,
      parsed: { ...parsed, attachments: parsed.attachments.map((a) => ({ ...a, content: Buffer.alloc(0) })) },
      inboxIds: message.inboxes.map((inbox) => inbox.id),
      authResults: message.authResults,
      spam: message.spam ?? false,
      receivedAt: (message.receivedAt ?? new Date()).toISOString(),
    });
    deps.bus.publish(reply.events);
    const byId = new Map(message.inboxes.map((inbox) => [inbox.id, inbox]));
    return reply.filed.map((f) => ({ inbox: byId.get(f.inboxId)!, uid: f.uid }));
  }
  const events: EventRow[] = [];
  const filed = await deps.store.groupCommit.submit(() => {
    events.length = 0;
    return fileForEach(deps, message, parsed, events);
  });
  deps.bus.publish(events);
  return filed;
}

/** The core, for callers already inside a transaction (local delivery of a send). One inbox after another. */
export async function fileForEach(
  deps: MailboxDeps,
  message: InboundMessage,
  parsed: ParsedEmail,
  events: EventRow[],
): Promise<Filed[]> {
  const receivedAt = message.receivedAt ?? new Date();
  const filed: Filed[] = [];
  for (const inbox of message.inboxes) {
    const folderName = message.spam ? 'Spam' : 'INBOX';
    const folder = await deps.store.folders.find(inbox.id, folderName);
    if (!folder) throw new Error(`inbox ${inbox.address} has no ${folderName} folder`);
    const row = await fileMessage(deps.store, {
      inbox,
      folder,
      parsed,
      raw: message.raw,
      flags: [],
      receivedAt,
      authResults: message.authResults,
    });
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
