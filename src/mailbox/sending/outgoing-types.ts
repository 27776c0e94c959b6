import type { AuditContext } from '../audit/audit-context.js';
import type { ComposeInput } from '../../mail/compose.js';
import type { HeldState } from '../../db/schema.js';
import type { EventRow } from '../../store/events.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MessageRow } from '../../store/messages.js';
import type { UnextractedEmailView } from '../reading/email-view.js';
import type { SendResult } from './send.js';

/** A message on its way out, composed from a send, reply, forward or draft. */
export interface Outgoing {
  inbox: InboxRow;
  compose: ComposeInput;
  /** Bare bcc addresses: kept on the Sent copy only, never in the headers. */
  bcc: string[];
  /** The message replied to, flagged `\Answered` in the same transaction. */
  answered?: MessageRow;
  /** The draft this message is: it leaves Drafts and the Sent copy keeps its uid. */
  draft?: MessageRow;
  /** The key that asked for it (null: a person, the CLI, in-process), recorded when it waits. */
  requestedBy?: string | null;
  /** Send later (contract 15): it waits in Outbox until then. */
  sendAt?: Date;
  /** A send kept in Outbox going out now (`draft` is its message there). */
  held?: HeldRelease;
  /** The request's audit record, written in the send's transaction. */
  audit?: AuditContext;
}

/** What sending a held send changes in its own transaction besides the message. */
export interface HeldRelease {
  id: string;
  /** The states it may leave; another decider having moved it first, the send does not happen. */
  from: readonly HeldState[];
  /** Events of the release (email.approved), given the Sent copy. */
  onSent: (view: UnextractedEmailView) => Promise<EventRow[]>;
}

/** The sender's copy in Sent, as the verbs shape their responses from it. */
export interface SentCopy {
  view: UnextractedEmailView;
  delivery: SendResult['delivery'];
  /** Why the copy is not in the remote Sent folder of a connected mailbox; absent when it is. */
  notSavedToSent?: string;
}
