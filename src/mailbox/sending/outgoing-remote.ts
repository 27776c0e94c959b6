import type { DeliveryStatus } from '../../db/schema.js';
import type { ComposedMessage } from '../../mail/compose.js';
import type { ParsedEmail } from '../../mail/types.js';
import type { EventRow } from '../../store/events.js';
import type { FolderRow } from '../../store/folders.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { RemoteMailbox } from '../remote.js';
import type { MailboxDeps } from '../deps.js';
import { Conflict, NotFound } from '../errors.js';
import { appendEmailEvent, fileMessage, viewOfFiled } from '../ingest/file-message.js';
import type { IdempotencyGuard } from './idempotency.js';
import { rememberResponse, replayIfSeen } from './idempotency.js';
import { countSend } from '../limits/send-counters.js';
import type { OutgoingRecipient } from './send-policy.js';
import type { Outgoing, SentCopy } from './outgoing-types.js';
import { addFlag } from '../organising/message-lock.js';

/**
 * Sending from a connected mailbox: through its own SMTP server first (a refusal is answered
 * before anything is stored), then APPENDed to its remote Sent, then the local Sent copy and
 * `email.sent` in one transaction. Recipients get what that server accepted: `delivered`, or
 * `failed` for those it refused. Nothing is queued here: the mailbox's server owns retries.
 *
 * Once the SMTP server accepted, the mail has left: a failing APPEND, draft removal or
 * `\Answered` store on the remote is logged, never answered as an error (a failed APPEND shows
 * as `savedToSent: false` with its reason), and the local Sent copy is kept (without a remote
 * UID) so the caller sees what was sent.
 */
export async function dispatchRemote<R>(
  deps: MailboxDeps,
  remote: RemoteMailbox,
  out: Outgoing,
  message: { composed: ComposedMessage; parsed: ParsedEmail; recipients: OutgoingRecipient[] },
  guard: IdempotencyGuard | null,
  shape: (sent: SentCopy) => R,
): Promise<R> {
  const { inbox } = out;
  const { composed, parsed, recipients } = message;
  const { store, log } = deps;
  return remote.exclusive(async () => {
    const seen = await replayIfSeen<R>(deps, guard);
    if (seen) return seen;
    const draft = out.draft ? await store.messages.get(out.draft.id) : undefined;
    if (out.draft && (!draft || draft.folder_id !== out.draft.folder_id)) {
      throw new NotFound(`no draft with uid ${out.draft.uid} in ${inbox.address}`);
    }
    // A held send is marked sent before its server is asked: at most once, as a decision is final.
    const { held } = out;
    if (held && !(await store.heldSends.change(held.id, held.from, { state: 'sent', due_at: null }))) {
      throw new Conflict(`the send ${held.id} was decided, cancelled or sent meanwhile`);
    }
    const sent =
      (await store.folders.findBySpecialUse(inbox.id, '\\Sent')) ??
      (await store.folders.find(inbox.id, 'Sent'));
    if (!sent) throw new Error(`inbox ${inbox.address} has no Sent folder`);

    // Counted before its server is asked (the mail leaves there), and forgotten if it refuses.
    const at = new Date();
    const counted = await store.db.transaction(() => countSend(deps, inbox, recipients, at));
    if (counted.refused) {
      deps.bus.publish(counted.events);
      throw counted.refused;
    }
    const result = await remote.submit(composed.envelope, composed.raw).catch(async (error: unknown) => {
      await store.sendLog.forget(inbox.id, at);
      throw error;
    });
    const afterSend = async <T>(what: string, step: () => Promise<T>): Promise<T | null> => {
      try {
        return await step();
      } catch (error) {
        log.warn({ account: inbox.address, err: (error as Error).message }, `sent, but ${what} failed`);
        return null;
      }
    };
    const saved = await saveToRemoteSent(deps, remote, inbox, sent, composed.raw);
    const sentUid = 'uid' in saved ? saved.uid : null;
    const draftFolder = draft ? await store.folders.get(draft.folder_id) : undefined;
    if (draft?.remote_uid != null && draftFolder?.remote_path) {
      const uid = draft.remote_uid;
      await afterSend('removing the remote draft', () => remote.expunge(draftFolder, uid));
    }
    const answered = out.answered ? await store.messages.get(out.answered.id) : undefined;
    const answeredFolder = answered ? await store.folders.get(answered.folder_id) : undefined;
    if (answered?.remote_uid != null && answeredFolder?.remote_path) {
      const uid = answered.remote_uid;
      await afterSend('flagging the original answered', () =>
        remote.setFlags(answeredFolder, uid, ['\\Answered'], []),
      );
    }

    const accepted = new Set(result.accepted.map((a) => a.toLowerCase()));
    const delivery = composed.envelope.to.map((recipient) => ({
      recipient,
      status: (accepted.has(recipient.toLowerCase()) ? 'delivered' : 'failed') as DeliveryStatus,
    }));
    const events: EventRow[] = [];
    const response = await store.db.transaction(async () => {
      if (draft && (await store.messages.get(draft.id))) await store.messages.remove(draft.id);
      const row = await fileMessage(store, {
        inbox,
        folder: sent,
        parsed,
        raw: composed.raw,
        flags: ['\\Seen'],
        receivedAt: composed.date,
        bcc: out.bcc,
        delivery,
        ...(draft ? { uid: draft.uid, threadId: draft.thread_id } : {}),
      });
      if (sentUid !== null) await store.imapState.setRemoteUid(row.id, sentUid);
      await store.deliveries.insert(
        delivery.map((d) => ({
          messageId: row.id,
          recipient: d.recipient,
          status: d.status,
          nextAttemptAt: null,
          lastError: d.status === 'failed' ? 'refused by the mailbox SMTP server' : null,
        })),
        composed.date,
      );
      if (answered) await addFlag(deps, answered.id, '\\Answered');
      const view = viewOfFiled(row, sent, parsed, true);
      if (held) events.push(...(await held.onSent(view)));
      events.push(await appendEmailEvent(store, 'email.sent', inbox, row, view));
      const shaped = shape({ view, delivery, ...('error' in saved ? { notSavedToSent: saved.error } : {}) });
      await rememberResponse(deps, guard, shaped);
      return shaped;
    });
    deps.bus.publish(events);
    return response;
  });
}

/**
 * APPENDs the sent copy to the remote Sent folder, creating one named Sent first when the
 * server has none (as mail programs do). Never throws: the mail has left; a failure is logged
 * and answered as `savedToSent: false` with its reason.
 */
async function saveToRemoteSent(
  deps: MailboxDeps,
  remote: RemoteMailbox,
  inbox: InboxRow,
  sent: FolderRow,
  raw: Buffer,
): Promise<{ uid: number | null } | { error: string }> {
  try {
    let folder = sent;
    if (!folder.remote_path) {
      await deps.store.imapState.setFolderRemote(sent.id, await remote.createFolder('Sent'));
      folder = (await deps.store.folders.get(sent.id))!;
    }
    return { uid: await remote.append(folder, raw, ['\\Seen']) };
  } catch (error) {
    const message = (error as Error).message;
    deps.log.warn({ account: inbox.address, err: message }, 'sent, but saving to the remote Sent failed');
    return { error: message };
  }
}
