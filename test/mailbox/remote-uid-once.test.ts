import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { createFolder, deleteFolder } from '../../src/mailbox/organising/folders.js';
import { fileNewMail, movedToSpam } from '../../src/mailbox/sync/new-mail.js';
import type { FetchedMessage } from '../../src/mailbox/sync/new-mail.js';
import type { EventRow } from '../../src/store/events.js';
import type { FolderRow } from '../../src/store/folders.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { rawMessage } from '../helpers/smtp-session.js';
import type { Who } from '../helpers/in-process.js';
import { inProcessInbox } from '../helpers/in-process.js';

// A remote message is stored once in its folder (contract 11: every IMAP message is stored once):
// (folder, remote UID) is unique, filing one that is there is a no-op, and a move never carries
// the UID of its old folder into the new one.
describe('one row per remote message and folder', () => {
  let deps: MailboxDeps;
  let inbox: InboxRow;
  let who: Who;
  let close: (() => Promise<void>) | undefined;
  const folder = (name: string) => deps.store.folders.find(inbox.id, name) as Promise<FolderRow>;
  const fetched = (uid: number, subject: string): FetchedMessage => ({
    uid,
    flags: new Set(),
    source: Buffer.from(rawMessage({ from: 'a@example.com', to: inbox.address, subject })),
  });
  /** Files as a sync that read its links before the other sync's filing committed. */
  const file = async (into: FolderRow, messages: FetchedMessage[]) =>
    fileNewMail(
      deps,
      { inbox, folder: into, linked: new Set(), announce: true, lookalikes: null, fence: null },
      messages,
    );

  beforeAll(async () => {
    ({ deps, inbox, who, close } = await inProcessInbox('once@mailroom.test'));
  });
  afterAll(async () => close?.());

  it('files a remote UID the folder holds already as nothing: one row, one email.received', async () => {
    const events: EventRow[] = [];
    const stop = deps.bus.subscribe((rows) => events.push(...rows));
    const inboxFolder = await folder('INBOX');
    await file(inboxFolder, [fetched(41, 'Once')]);
    await file(inboxFolder, [fetched(41, 'Once'), fetched(42, 'Next')]);
    stop();
    const links = await deps.store.imapState.links(inboxFolder.id);
    expect(links.map((l) => l.remote_uid).sort()).toEqual([41, 42]);
    expect(events.filter((e) => e.type === 'email.received')).toHaveLength(2);
  });

  it('moves mail into a folder holding its remote UID, from two folders: all kept, the moved unlinked until the server says', async () => {
    const [inboxFolder, sent] = [await folder('INBOX'), await folder('Sent')];
    const spam = (await deps.store.folders.findBySpecialUse(inbox.id, '\\Junk'))!;
    await file(spam, [fetched(77, 'Seventy-seven in Spam')]);
    const moves = [];
    for (const from of [inboxFolder, sent]) {
      await file(from, [fetched(77, `Seventy-seven in ${from.name}`)]);
      moves.push({ id: (await deps.store.imapState.byRemoteUid(from.id, 77))!.id, remoteUid: 77 });
    }
    await movedToSpam(deps, moves, spam, null);
    const inSpam = await deps.store.messages.allInFolder(spam.id);
    expect(inSpam.map((m) => m.remote_uid)).toEqual([77, null, null]);
  });

  it('moves the mail of deleted folders into Trash, where the same remote UIDs were', async () => {
    const trash = await folder('Trash');
    await file(trash, [fetched(5, 'In Trash')]);
    for (const name of ['Projects', 'Archive']) {
      await createFolder(deps, who, inbox.address, name);
      await file(await folder(name), [fetched(5, `Five in ${name}`)]);
    }
    for (const name of ['Projects', 'Archive']) {
      expect((await deleteFolder(deps, who, inbox.address, name)).movedToTrash).toBe(1);
    }
    const inTrash = await deps.store.messages.allInFolder(trash.id);
    expect(inTrash.map((m) => m.remote_uid)).toEqual([5, null, null]);
  });
});
