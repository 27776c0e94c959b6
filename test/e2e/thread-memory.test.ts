// Engines: SQLite only: the V8 limits a thread starts with do not depend on the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INGEST_THREAD_LIMITS, IngestWriter } from '../../src/mailbox/ingest/ingest-writer.js';
import { WITH_THREADS, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe("the ingest thread's memory", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(WITH_THREADS);
  });
  afterAll(async () => server.stop());

  it('files mail on a thread whose young generation is capped (RSS held for good otherwise)', async () => {
    await server.sendMail({ from: 'alice@example.com', to: server.inbox, subject: 'Filed', text: 'x' });
    const listed = await server.api(`/emails?account=${server.inbox}`);
    expect(listed.json.data.emails.map((e: { subject: string }) => e.subject)).toEqual(['Filed']);
    const ingest = server.mailroom.deps.ingest;
    expect(ingest).toBeInstanceOf(IngestWriter);
    expect((ingest as IngestWriter).threadLimits).toMatchObject(INGEST_THREAD_LIMITS);
  });
});
