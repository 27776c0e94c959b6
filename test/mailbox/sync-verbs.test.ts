import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEmail } from '../../src/mail/parse.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { fileMessage } from '../../src/mailbox/ingest/file-message.js';
import type { ConnectedInbox } from '../../src/mailbox/sync/connected-inboxes.js';
import { dropExpunged, linkedMissingFrom } from '../../src/mailbox/sync/expunges.js';
import type { ListedFolder } from '../../src/mailbox/sync/folder-map.js';
import { mapFolders } from '../../src/mailbox/sync/folder-map.js';
import { dropGoneFolders } from '../../src/mailbox/sync/gone-folders.js';
import { fileNewMail, linkedAmong } from '../../src/mailbox/sync/new-mail.js';
import { takeRemoteFlags } from '../../src/mailbox/sync/remote-flags.js';
import { inProcessInbox } from '../helpers/in-process.js';

const fixture = (name: string): Buffer => fs.readFileSync(new URL(`../../fixtures/${name}`, import.meta.url));

const listed = (path: string, specialUse?: string, flags: string[] = []): ListedFolder => ({
  path,
  delimiter: '/',
  flags: new Set(flags),
  ...(specialUse ? { specialUse } : {}),
});

// The sync's rules, in-process against a real database: what src/imap/ hands them is what a
// server's LIST and FETCH answered (test/e2e/imap-*.test.ts drive the same through Dovecot).
describe('the sync verbs (mailbox/sync) decide what a remote mailbox means locally', () => {
  let deps: MailboxDeps;
  let close: (() => Promise<void>) | undefined;
  let inbox: ConnectedInbox;

  beforeAll(async () => {
    ({ deps, inbox, close } = await inProcessInbox('sync@mailroom.test'));
  });
  afterAll(async () => close?.());

  it('maps roles onto the standard folders, INBOX first, skips views and clashes, and drops what is gone', async () => {
    const list = [
      listed('Projects/2026'),
      listed('Sent Items', '\\Sent'),
      listed('[Gmail]/All Mail', '\\All'),
      listed('Archive', undefined, ['\\Noselect']),
      listed('Trash'),
      listed('INBOX', '\\Inbox'),
    ];
    const mapped = await mapFolders(deps, inbox, list);
    expect(mapped.map((f) => [f.name, f.special_use, f.remote_path])).toEqual([
      ['INBOX', '\\Inbox', 'INBOX'],
      ['Sent', '\\Sent', 'Sent Items'],
      ['Projects/2026', null, 'Projects/2026'],
    ]);

    // Renamed on the server: the old copy goes, a standard folder stays unmapped.
    const again = await mapFolders(deps, inbox, [listed('INBOX', '\\Inbox'), listed('Projects/2027')]);
    await dropGoneFolders(deps, inbox, again);
    const folders = await deps.store.folders.listOf(inbox.id);
    expect(folders.find((f) => f.name === 'Projects/2026')).toBeUndefined();
    expect(folders.find((f) => f.name === 'Projects/2027')?.remote_path).toBe('Projects/2027');
    expect(folders.find((f) => f.special_use === '\\Sent')?.remote_path).toBeNull();
  });

  it('files new mail once, adopts a local copy, takes flags and drops expunged mail', async () => {
    const folder = (await deps.store.folders.findBySpecialUse(inbox.id, '\\Sent'))!;
    // A copy this server stored (an APPEND whose UID the server did not tell): adopted, not filed twice.
    const appended = fixture('attachments.eml');
    const copy = await deps.store.db.transaction(async () =>
      fileMessage(deps.store, {
        inbox,
        folder,
        parsed: await parseEmail(appended),
        raw: appended,
        flags: ['\\Seen'],
        receivedAt: new Date('2026-01-02T03:04:05Z'),
      }),
    );
    const fetched = [
      { uid: 7, flags: new Set(['\\Seen', '\\Recent']), source: fixture('multipart-alternative.eml') },
      { uid: 8, flags: new Set(['\\Seen', '\\Answered']), source: appended },
      { uid: 7, flags: new Set<string>(), source: fixture('multipart-alternative.eml') },
    ];
    const linked = await linkedAmong(deps, folder.id, [7, 8]);
    await fileNewMail(
      deps,
      { inbox, folder, linked, announce: false, lookalikes: null, fence: null },
      fetched,
    );
    const links = () => deps.store.imapState.links(folder.id);
    expect((await links()).map((l) => [l.remote_uid, JSON.parse(l.flags)]).sort()).toEqual([
      [7, ['\\Seen']],
      [8, ['\\Answered', '\\Seen']],
    ]);
    expect((await links()).find((l) => l.remote_uid === 8)?.id).toBe(copy.id);
    expect(await linkedAmong(deps, folder.id, [7, 8, 9])).toEqual(new Set([7, 8]));

    await takeRemoteFlags(deps, folder.id, [{ uid: 7, flags: new Set(['\\Flagged']) }]);
    expect(JSON.parse((await links()).find((l) => l.remote_uid === 7)!.flags)).toEqual(['\\Flagged']);

    await dropExpunged(deps, await linkedMissingFrom(deps, folder.id, new Set([8])));
    expect((await links()).map((l) => l.remote_uid)).toEqual([8]);
  });
});
