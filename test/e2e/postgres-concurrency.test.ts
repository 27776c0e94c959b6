import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import { testPostgres } from '../helpers/test-postgres.js';

// On PostgreSQL calls outside a transaction run side by side on several connections, so what
// must not interleave relies on its row locks, not on one connection taking turns.
describe('concurrent writes on PostgreSQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      databaseUrl: await (await testPostgres()).createDatabase(),
    });
  });
  afterAll(async () => server?.stop());

  const acc = () => `account=${encodeURIComponent(server.inbox)}`;

  it('gives 50 concurrent deliveries to one inbox the distinct uids 1 to 50', async () => {
    expect(server.mailroom.db.engine).toBe('postgres');
    const replies = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const smtp = await openSmtp(server.mailroom.smtp.port);
        try {
          const subject = `concurrent ${i}`;
          const raw = rawMessage({ from: 'alice@example.com', to: server.inbox, subject });
          return (await smtp.send('alice@example.com', [server.inbox], raw)).data?.code;
        } finally {
          await smtp.close();
        }
      }),
    );
    expect(replies.every((code) => code === 250)).toBe(true);
    const list = await server.api(`/emails?${acc()}&limit=100`);
    const uids = (list.json.data.emails as { uid: number }[]).map((e) => e.uid).sort((a, b) => a - b);
    expect(uids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('keeps every one of 20 labels applied to one email at the same time', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `label-${i}`);
    for (const name of names) expect((await server.api('/labels', { body: { name } })).status).toBe(201);
    const applied = await Promise.all(
      names.map((name) => server.api(`/emails/1/labels?${acc()}`, { body: { labels: [name] } })),
    );
    expect(applied.map((r) => r.status)).toEqual(names.map(() => 200));
    const email = (await server.api(`/emails/1?${acc()}`)).json.data.email as { labels: { name: string }[] };
    expect(email.labels.map((l) => l.name).sort()).toEqual([...names].sort());
  });

  it('loses neither flag when an email is marked read and flagged at the same time, 10 times over', async () => {
    for (let uid = 2; uid <= 11; uid++) {
      const [read, flag] = await Promise.all([
        server.api(`/emails/${uid}?${acc()}`, { method: 'PATCH', body: { action: 'read' } }),
        server.api(`/emails/${uid}?${acc()}`, { method: 'PATCH', body: { action: 'flag' } }),
      ]);
      expect([read.status, flag.status]).toEqual([200, 200]);
      const email = (await server.api(`/emails/${uid}?${acc()}`)).json.data.email as { flags: string[] };
      expect(email.flags.sort()).toEqual(['\\Flagged', '\\Seen']);
    }
  });
});
