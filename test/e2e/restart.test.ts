import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';

interface Listed {
  uid: number;
  subject: string;
  threadId: string;
  messageId: string;
  attachments: { id: string; filename: string }[];
}

describe('a restart keeps every message', () => {
  let server: TestServer;
  let bob: { key: string; inbox: string };
  const COUNT = 30;

  beforeAll(async () => {
    // All COUNT messages are sent at once, each on its own connection from 127.0.0.1 (trusted, so
    // not held to the per-IP limit). The stop's grace is long because a stop ends as soon as the
    // transactions in flight do: at load ~20 the in-flight test's DATA took longer than the
    // default 5 s and was cut off with 421.
    server = await startServer({ shutdownGrace: 120 });
    bob = await server.addUser('bob');
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < COUNT; i++) {
      sends.push(
        server.sendMail({
          from: `sender${i}@example.com`,
          to: i % 5 === 0 ? [server.inbox, bob.inbox] : server.inbox,
          subject: `Before restart ${i}`,
          text: `Searchable word zebra${i}`,
          ...(i === 3 ? { attachments: [{ filename: 'kept.txt', content: 'kept bytes' }] } : {}),
        }),
      );
    }
    await Promise.all(sends);
  });
  afterAll(async () => server.stop());

  const all = async (account: string, key = server.key): Promise<Listed[]> =>
    (await server.api(`/emails?account=${account}&limit=100`, { key })).json.data.emails;

  it('serves the same messages, uids, threads and attachments after a restart', async () => {
    const before = await all(server.inbox);
    const bobBefore = await all(bob.inbox, bob.key);
    expect(before).toHaveLength(COUNT);
    expect(bobBefore).toHaveLength(COUNT / 5);

    await server.restart();
    expect(server.mailroom.bootstrap).toBeNull();

    const after = await all(server.inbox);
    expect(after).toEqual(before);
    expect(await all(bob.inbox, bob.key)).toEqual(bobBefore);

    for (const email of before) {
      const read = await server.api(`/emails/${email.uid}?account=${server.inbox}`);
      expect(read.status).toBe(200);
      expect(read.json.data.email.messageId).toBe(email.messageId);
    }
    const withFile = after.find((e) => e.attachments.length > 0)!;
    const file = await server.api(
      `/emails/${withFile.uid}/attachments/${withFile.attachments[0]!.id}?account=${server.inbox}`,
    );
    expect(file.text).toBe('kept bytes');
  });

  it('keeps the search index and the keys', async () => {
    const found = await server.api(`/emails?account=${server.inbox}&q=zebra17`);
    expect(found.json.data.emails.map((e: Listed) => e.subject)).toEqual(['Before restart 17']);
    expect((await server.api('/accounts', { key: bob.key })).status).toBe(200);
  });

  it('finishes an SMTP transaction that is in flight when the server stops', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    await smtp.command('MAIL FROM:<slow@example.com>');
    expect((await smtp.command(`RCPT TO:<${server.inbox}>`)).code).toBe(250);
    const restarting = server.restart();
    const data = await smtp.data(
      rawMessage({ from: 'slow@example.com', to: server.inbox, subject: 'In flight' }),
    );
    expect(data.code).toBe(250);
    await smtp.close();
    await restarting;
    const found = await server.api(`/emails?account=${server.inbox}&subject=In flight`);
    expect(found.json.data.emails).toHaveLength(1);
  });

  it('continues uids after the highest one, never reusing one', async () => {
    const before = await all(server.inbox);
    const highest = Math.max(...before.map((e) => e.uid));
    await server.sendMail({
      from: 'late@example.com',
      to: server.inbox,
      subject: 'After restart',
      text: 'x',
    });
    const [newest] = await all(server.inbox);
    expect(newest).toMatchObject({ subject: 'After restart', uid: highest + 1 });

    await server.restart();
    await server.sendMail({ from: 'late@example.com', to: server.inbox, subject: 'After second', text: 'x' });
    const list = await all(server.inbox);
    expect(list[0]).toMatchObject({ subject: 'After second', uid: highest + 2 });
    expect(list).toHaveLength(COUNT + 3);
  });
});
