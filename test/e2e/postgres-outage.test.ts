import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres } from '../helpers/postgres.js';
import type { Postgres } from '../helpers/postgres.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import type { SmtpReply } from '../helpers/smtp-session.js';

// Its own PostgreSQL (not the run's shared one): this test kills it.
describe('PostgreSQL goes away while mail flows, and comes back', () => {
  let postgres: Postgres;
  let server: TestServer;
  beforeAll(async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase();
    // The test server runs with synchronous_commit off (speed); a crash then loses commits that
    // were acknowledged, as it would lose Mailroom's. PostgreSQL's default, on, for this database.
    const admin = new pg.Client({ connectionString: postgres.adminUrl });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET synchronous_commit = on`);
    await admin.end();
    server = await startServer({ databaseUrl: url, readinessProbeMs: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await postgres?.stop();
  });

  /** One message over SMTP: the reply that decided it (DATA's, or the first refusal before it). */
  async function deliver(subject: string): Promise<SmtpReply> {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    try {
      const { mail, rcpt, data } = await smtp.send(
        'alice@example.com',
        [server.inbox],
        rawMessage({ from: 'alice@example.com', to: server.inbox, subject }),
      );
      return data ?? rcpt.find((r) => r.code !== 250) ?? mail;
    } finally {
      await smtp.close();
    }
  }

  it('answers 451 and 503 while it is down, recovers without a restart, and loses nothing acknowledged', async () => {
    const acknowledged: string[] = [];

    const refused: SmtpReply[] = [];
    let flowing = true;
    let sent = 0;
    // Mail keeps arriving, three senders at a time, across the crash and the recovery.
    const senders = [0, 1, 2].map(async (sender) => {
      while (flowing) {
        const subject = `flow ${sender}-${++sent}`;
        const reply = await deliver(subject);
        if (reply.code === 250) acknowledged.push(subject);
        else refused.push(reply);
      }
    });

    await eventually(() => acknowledged.length >= 10);
    await postgres.kill();

    const during = await deliver('while down');
    expect(during.code).toBe(451);
    expect(during.text).toMatch(/^4\.3\.0 /);
    const list = await server.api(`/emails?account=${server.inbox}`);
    expect(list.status).toBe(503);
    expect(list.json.error.code).toBe('unavailable');
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(503);
    await eventually(() => refused.length >= 3);

    await postgres.start();
    await eventually(async () => (await deliver('after')).code === 250);
    expect((await server.api(`/emails?account=${server.inbox}`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    const ackedAfter = acknowledged.length;
    await eventually(() => acknowledged.length >= ackedAfter + 5);
    flowing = false;
    await Promise.all(senders);

    // Every refusal was a 4xx (try again later), never a 5xx the sender would give up on.
    expect(refused.every((r) => r.code >= 400 && r.code < 500)).toBe(true);
    const stored = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await server.api(
        `/emails?account=${server.inbox}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status).toBe(200);
      for (const email of page.json.data.emails as { subject: string }[]) stored.add(email.subject);
      cursor = page.json.data.nextCursor ?? undefined;
    } while (cursor);
    expect(acknowledged.filter((subject) => !stored.has(subject))).toEqual([]);
    expect(stored.has('after')).toBe(true);
  });
});
