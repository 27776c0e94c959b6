import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { immutableSupported, setImmutable } from '../helpers/immutable.js';
import { eventually, onPostgres, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';

// On PostgreSQL: skipped, the outage is made by turning the SQLite files immutable (postgres-outage covers it).
const canMakeReadOnly = immutableSupported() && !onPostgres;

describe.skipIf(!canMakeReadOnly)('a database that turns read-only while the server runs', () => {
  let server: TestServer;
  let dbFiles: string[];
  const logLines: { level: number; msg: string }[] = [];
  beforeAll(async () => {
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
          done();
        },
      }),
    );
    server = await startServer({ logger, readinessProbeMs: 0 });
    const dbFile = server.mailroom.config.dbFile;
    dbFiles = [dbFile, `${dbFile}-wal`];
  });
  afterAll(async () => {
    setImmutable(dbFiles, false);
    await server.stop();
  });

  const readyz = async () => {
    const res = await fetch(`${server.baseUrl}/readyz`);
    return { status: res.status, body: await res.json() };
  };
  async function send(subject: string) {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const result = await smtp.send(
      'alice@example.com',
      [server.inbox],
      rawMessage({ from: 'alice@example.com', to: server.inbox, subject }),
    );
    await smtp.close();
    return result.data!;
  }
  const subjects = async (key?: string) =>
    (await server.api(`/emails?account=${server.inbox}`, { key })).json.data.emails.map(
      (e: { subject: string }) => e.subject,
    );
  const unwritableLines = () => logLines.filter((l) => l.msg.startsWith('the database cannot be written'));

  it('fails /readyz with 503 and logs why once; reads still work, writes answer 503 and SMTP 451', async () => {
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await send('Before')).code).toBe(250);
    // A key used for the first time while read-only: authentication must not need a write.
    const fresh = await server.addUser('reader', 'reader');
    const before = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails;

    setImmutable(dbFiles, true);
    try {
      expect(await readyz()).toEqual({ status: 503, body: { status: 'unavailable' } });
      expect((await readyz()).status).toBe(503);
      expect((await readyz()).status).toBe(503);
      expect(unwritableLines()).toHaveLength(1);
      expect(unwritableLines()[0]!.level).toBe(50);
      expect(JSON.stringify(unwritableLines()[0])).toMatch(/SQLITE_(IOERR|READONLY)/);

      expect(await subjects()).toEqual(['Before']);
      const readerAccounts = await server.api('/accounts', { key: fresh.key });
      expect(readerAccounts.status).toBe(200);

      const patch = await server.api(`/emails/${before[0].uid}?account=${server.inbox}`, {
        method: 'PATCH',
        body: { action: 'read' },
      });
      expect(patch.status).toBe(503);
      expect(patch.json.error.code).toBe('unavailable');

      const refused = await send('While read-only');
      expect(refused.code).toBe(451);
    } finally {
      setImmutable(dbFiles, false);
    }

    // It recovers by itself, and says so once.
    await eventually(async () => (await readyz()).status === 200);
    expect(logLines.filter((l) => l.msg.startsWith('the database takes writes again'))).toHaveLength(1);
    expect((await send('After')).code).toBe(250);
    expect(await subjects()).toEqual(['After', 'Before']);
    expect(unwritableLines()).toHaveLength(1);
  });
});
