import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { sqliteOf } from '../helpers/sqlite-of.js';

// On PostgreSQL: the full disk is made with an SQLite page limit on the server's connection.
describe.skipIf(onPostgres)('an API send when the database file cannot grow (SQLITE_FULL)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server.stop());

  // The server's own connection: a page limit set on it gives a genuine SQLITE_FULL to its writes.
  const sqlite = () => sqliteOf(server.mailroom.db);
  const footprint = () =>
    Object.fromEntries(
      ['messages', 'message_sources', 'deliveries', 'events', 'idempotency_keys'].map((table) => [
        table,
        (sqlite().prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
      ]),
    );
  const send = (subject: string, idempotencyKey: string) =>
    server.api('/emails/send', {
      headers: { 'idempotency-key': idempotencyKey },
      body: {
        from: server.inbox,
        to: 'someone@example.com',
        subject,
        // Random letters: mail is stored compressed, and these take their room all the same.
        text: `${subject}\nA line that takes room in the database.\n${crypto
          .randomBytes(150_000)
          .toString('base64')
          .replace(/(.{76})/g, '$1\n')}`,
      },
    });
  const sentSubjects = async () =>
    (await server.api(`/emails?account=${server.inbox}&folder=Sent`)).json.data.emails.map(
      (e: { subject: string }) => e.subject,
    );

  it('answers 503 unavailable with Retry-After, loses nothing, and the retry works once there is room', async () => {
    expect((await send('Stored before', 'k-before')).status).toBe(200);
    const before = footprint();

    const pages = sqlite().pragma('page_count', { simple: true }) as number;
    sqlite().pragma(`max_page_count = ${pages}`);
    let full;
    try {
      full = await send('Does not fit', 'k-full');
      // Reading still works while the disk is full.
      expect(await sentSubjects()).toEqual(['Stored before']);
    } finally {
      sqlite().pragma('max_page_count = 1073741823');
    }
    expect(full.status).toBe(503);
    expect(full.json.error.code).toBe('unavailable');
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(full.text).not.toMatch(/SQLITE|sqlite/);
    expect(footprint()).toEqual(before);

    // The same request again, Idempotency-Key included, now goes through: nothing was remembered.
    const retry = await send('Does not fit', 'k-full');
    expect(retry.status).toBe(200);
    expect(await sentSubjects()).toEqual(['Does not fit', 'Stored before']);
    const raw = await server.api(`/emails/${retry.json.data.uid}/raw?account=${server.inbox}`);
    expect(raw.text).toContain('A line that takes room in the database.');
  });
});
