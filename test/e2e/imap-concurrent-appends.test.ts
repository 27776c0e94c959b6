// Engines: SQLite only: a race between Dovecot's APPENDs and the sync's reading of INBOX.
import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../helpers/dovecot.js';
import { listFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';
import { eventually } from '../helpers/server.js';

const ROUNDS = 4;
const PER_ROUND = 12;
const WRITERS = 4;

describe('mail appended while the sync reads INBOX', () => {
  let world: ImapWorld;
  let writers: ImapFlow[];

  beforeAll(async () => {
    world = await startImapWorld();
    writers = await Promise.all(Array.from({ length: WRITERS }, () => world.dovecot.client(world.user)));
    await world.other.append('INBOX', rawMessage({ subject: 'Before' }), []);
    expect((await world.connect()).status).toBe(201);
    await eventually(async () => (await listFolder(world, 'INBOX')).length === 1, 30_000);
  });
  afterAll(async () => {
    await Promise.all(writers.map((w) => w.logout().catch(() => w.close())));
    await world.stop();
  });

  it('files every message exactly once, however the APPENDs and the sync interleave', async () => {
    const expected = ['Before'];
    for (let round = 0; round < ROUNDS; round++) {
      const subjects = Array.from({ length: PER_ROUND }, (_, i) => `Round ${round} mail ${i}`);
      expected.push(...subjects);
      // Side by side on several connections: Dovecot takes them while the sync (every 400 ms,
      // and on each IDLE wake-up) is between its SELECT, SEARCH and FETCHes.
      await Promise.all(
        subjects.map((subject, i) => writers[i % WRITERS]!.append('INBOX', rawMessage({ subject }), [])),
      );
    }
    const filed = async () => (await listFolder(world, 'INBOX')).map((e: { subject: string }) => e.subject);
    // A message the sync skipped never comes: the wait ends and the lists below show which.
    await eventually(async () => (await filed()).length >= expected.length, 30_000).catch(() => undefined);
    expect((await filed()).sort()).toEqual(expected.sort());
  });
});
