// Engines: SQLite only: that a server sweeps Trash when it starts; what the sweep deletes and keeps is test/mailbox/trash-sweep.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const DAY = 24 * 60 * 60 * 1000;

let server: TestServer;
let acc: string;

beforeAll(async () => {
  server = await startServer({ trashDays: 30 });
  acc = `account=${encodeURIComponent(server.inbox)}`;
});
afterAll(async () => server.stop());

let counter = 0;
async function deliver(): Promise<number> {
  const subject = `Sweepable ${++counter}`;
  await server.sendMail({ from: 'dave@example.com', to: server.inbox, subject, text: 'bye' });
  const list = await server.api(`/emails?${acc}&subject=${encodeURIComponent(subject)}`);
  return list.json.data.emails[0].uid;
}
const trash = (uid: number) => server.api(`/emails/${uid}?${acc}`, { method: 'DELETE' });
const where = async (uid: number): Promise<string | null> => {
  const res = await server.api(`/emails/${uid}/raw?${acc}`);
  if (res.status === 404) return null;
  for (const folder of ['INBOX', 'Trash', 'Archive']) {
    if ((await server.api(`/emails/${uid}?${acc}&folder=${folder}`)).status === 200) return folder;
  }
  return 'elsewhere';
};
describe('the trash sweep', () => {
  it('runs at start: a server restarted with old mail in Trash empties it', async () => {
    const old = await deliver();
    const fresh = await deliver();
    await trash(old);
    await trash(fresh);
    const deps = server.mailroom.deps;
    const inbox = (await deps.store.inboxes.findByAddress(server.inbox))!;
    const row = (await deps.store.messages.getByUid(inbox.id, old))!;
    await deps.store.db.rawRun(
      'UPDATE messages SET trashed_at = ? WHERE id = ?',
      new Date(Date.now() - 31 * DAY).toISOString(),
      row.id,
    );

    await server.restart();
    await eventually(async () => (await where(old)) === null);
    expect(await where(fresh)).toBe('Trash');
  });
});
