import type { AuditContext } from '../audit/audit-context.js';
import type { ComposeInput } from '../../mail/compose.js';
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
  /** The request's audit record, written in the send's transaction. */
  audit?: AuditContext;
}

/** The sender's copy in Sent, as the verbs shape their responses from it. */
export interface SentCopy {
  view: UnextractedEmailView;
  delivery: SendResult['delivery'];
  /** Why the copy is not in the remote Sent folder of a connected mailbox; absent when it is. */
  notSavedToSent?: string;
}
