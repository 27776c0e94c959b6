import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const ADMIN_TOKEN = 'shared-source-admin-token-0123';

/** A message whose text repeats: stored compressed, it takes a fraction of its size. */
function message(subject: string, to: string[]): string {
  return [
    'From: Alice <alice@example.com>',
    `To: ${to.join(', ')}`,
    `Subject: ${subject}`,
    `Message-ID: <${subject.replace(/\W/g, '')}@example.com>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'The quarterly figures are attached below, line by line.\r\n'.repeat(400),
  ].join('\r\n');
}

describe('one stored source for the copies of a delivery (migration 017)', { timeout: 120_000 }, () => {
  let server: TestServer;
  const team = ['ops@mailroom.test', 'sales@mailroom.test'];

  beforeAll(async () => {
    server = await startServer({ env: { MAILROOM_ADMIN_TOKEN: ADMIN_TOKEN } });
    for (const address of team) {
      const res = await fetch(`${server.baseUrl}/admin/v1/inboxes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ address, user: 'default' }),
      });
      expect(res.status, await res.text()).toBe(201);
    }
  });
  afterAll(() => server.stop());

  const sources = async () =>
    Number(
      (await server.mailroom.db.rawFirst<{ n: number }>('SELECT count(*) AS n FROM message_sources'))!.n,
    );
  const storedBytes = async () =>
    Number(
      (await server.mailroom.db.rawFirst<{ n: number }>(
        'SELECT sum(length(raw) + length(body)) AS n FROM message_sources',
      ))!.n ?? 0,
    );
  const uidIn = async (account: string, subject: string) =>
    (
      (await server.api(`/emails?account=${account}`)).json.data.emails as { uid: number; subject: string }[]
    ).find((e) => e.subject === subject)!.uid;

  it('keeps one compressed source for a message to three local inboxes, each reading it whole', async () => {
    const before = await sources();
    const raw = message('Team figures', [server.inbox, ...team]);
    await server.sendRaw(raw, { from: 'alice@example.com', to: [server.inbox, ...team] });
    expect(await sources()).toBe(before + 1);
    // Compressed: the source and its text together take less than a tenth of the message.
    expect(await storedBytes()).toBeLessThan(Buffer.byteLength(raw) / 10);
    for (const account of [server.inbox, ...team]) {
      const uid = await uidIn(account, 'Team figures');
      const read = await server.api(`/emails/${uid}?account=${account}`);
      expect(read.json.data.email.text).toContain('The quarterly figures are attached below');
      const source = await server.api(`/emails/${uid}/raw?account=${account}`);
      expect(source.text).toContain('Subject: Team figures');
      expect(source.text).toContain(raw.slice(raw.indexOf('From: Alice')));
    }
  });

  it('keeps the source while one copy is left, and deletes it with the last', async () => {
    const before = await sources();
    await server.sendRaw(message('Shared then gone', [server.inbox, ...team]), {
      from: 'alice@example.com',
      to: [server.inbox, ...team],
    });
    expect(await sources()).toBe(before + 1);
    const [first, ...others] = [server.inbox, ...team];
    const deleteForGood = async (account: string) => {
      const uid = await uidIn(account, 'Shared then gone');
      const res = await server.api(`/emails/${uid}?account=${account}&permanent=true`, { method: 'DELETE' });
      expect(res.status).toBe(200);
    };
    await deleteForGood(first!);
    expect(await sources()).toBe(before + 1);
    const uid = await uidIn(others[0]!, 'Shared then gone');
    expect((await server.api(`/emails/${uid}/raw?account=${others[0]}`)).text).toContain(
      'Subject: Shared then gone',
    );
    // The last two copies deleted at once: the source goes with the last of them.
    await Promise.all(others.map(deleteForGood));
    expect(await sources()).toBe(before);
  });

  it('deletes the sources of an inbox removed with its mail, and keeps those another inbox shares', async () => {
    await server.sendRaw(message('Only for sales', ['sales@mailroom.test']), {
      from: 'alice@example.com',
      to: ['sales@mailroom.test'],
    });
    const before = await sources();
    const res = await fetch(`${server.baseUrl}/admin/v1/inboxes/sales@mailroom.test`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    // 'Only for sales' went; 'Team figures' stays for the other two inboxes.
    expect(await sources()).toBe(before - 1);
    const uid = await uidIn('ops@mailroom.test', 'Team figures');
    expect((await server.api(`/emails/${uid}/raw?account=ops@mailroom.test`)).text).toContain(
      'Subject: Team figures',
    );
  });
});
