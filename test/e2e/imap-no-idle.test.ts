// Engines: SQLite only: IMAP servers without IDLE, a protocol rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../helpers/dovecot.js';
import { eventuallyFolder, listFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';
import { eventually } from '../helpers/server.js';

// Debian's default Cyrus and Courier either lack IDLE or do not push through it. Here Dovecot
// leaves IDLE out of its capabilities; the full comparison runs only every ten minutes, so new
// mail can only come through the INBOX check (MAILROOM_IMAP_CHECK_SECONDS, 1 s here). Without it,
// imapflow's fallback sends a NOOP every two minutes.
describe('new mail on a server without IDLE', { timeout: 60_000 }, () => {
  let world: ImapWorld;
  beforeAll(async () => {
    world = await startImapWorld('noidle', {
      dovecot: { extraConfig: 'imap_capability = IMAP4rev1 LITERAL+ SASL-IR ID ENABLE UIDPLUS MOVE\n' },
      env: { MAILROOM_IMAP_CHECK_SECONDS: '1' },
      imapOptions: { pollMs: 600_000 },
    });
    expect(world.other.capabilities.has('IDLE')).toBe(false);
    expect((await world.connect()).status).toBe(201);
    // Synced once and waiting: the mail below must come through the wait, not the first sync.
    await eventually(async () => {
      const accounts = (await world.server.api('/accounts')).json.data.accounts as {
        address: string;
        sync?: { state: string };
      }[];
      return accounts.find((a) => a.address === world.address)?.sync?.state === 'synced';
    });
  });
  afterAll(() => world?.stop());

  it('shows mail delivered by another client within the check interval, not the poll', async () => {
    expect(await listFolder(world, 'INBOX')).toEqual([]);
    await world.other.append('INBOX', rawMessage({ subject: 'Arrived without IDLE' }), []);
    const emails = await eventuallyFolder(world, 'INBOX', (list) => list.length === 1, 30_000);
    expect(emails[0].subject).toBe('Arrived without IDLE');
  });
});
