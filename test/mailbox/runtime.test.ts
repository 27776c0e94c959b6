import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteOf } from '../../src/mailbox/backend.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { MailroomError } from '../../src/mailbox/errors.js';
import { waitForEmails } from '../../src/mailbox/events/wait-for-email.js';
import { receiveMessage } from '../../src/mailbox/ingest/receive.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { inProcessInbox } from '../helpers/in-process.js';
import { ownerCaller } from '../../src/mailbox/caller.js';

/** The deps the CLI and the ingest thread run on: no threads, no sync, no waiting room. */
describe('deps built for a command', () => {
  let deps: MailboxDeps;
  let inbox: InboxRow;
  let close: (() => Promise<void>) | undefined;

  // inProcessInbox builds its deps with buildDeps in the CLI's mode.
  beforeAll(async () => {
    ({ deps, inbox, close } = await inProcessInbox('bob@mailroom.test'));
  });
  afterAll(async () => close?.());

  it('cannot be changed once built', () => {
    expect(Object.isFrozen(deps)).toBe(true);
    expect(() => Object.assign(deps, { remote: null })).toThrow(TypeError);
  });

  it('files and parses received mail on this thread', async () => {
    const raw = Buffer.from(
      'From: a@example.com\r\nTo: bob@mailroom.test\r\nSubject: inline\r\n\r\nHello\r\n',
    );
    await receiveMessage(deps, { raw, inboxes: [inbox] });
    const page = await listEmails(deps, ownerCaller(inbox.user_id), { account: inbox.address, limit: 10 });
    expect(page.emails.map((e) => e.subject)).toEqual(['inline']);
  });

  it('answers a wait for mail at once with what is there', async () => {
    const caller = ownerCaller(inbox.user_id);
    const found = await waitForEmails(
      deps,
      caller,
      { account: inbox.address, limit: 10 },
      { timeoutMs: 600_000 },
    );
    expect(found.end).toBe('found');
    const none = await waitForEmails(
      deps,
      caller,
      { account: inbox.address, folder: 'Trash', limit: 10 },
      { timeoutMs: 600_000 },
    );
    expect(none).toMatchObject({ emails: [], end: 'timeout' });
  });

  it("refuses a connected inbox's writes with 422, naming why", () => {
    const connected = { ...inbox, kind: 'imap', address: 'far@example.com' } as InboxRow;
    let refused: unknown;
    try {
      remoteOf(deps, connected);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(MailroomError);
    expect((refused as MailroomError).code).toBe('unprocessable');
    expect((refused as Error).message).toBe('far@example.com is a connected mailbox and sync is not running');
  });
});
