/**
 * Worker-thread entry: files parsed inbound messages in group-commit batches on its own
 * connection, so a commit's fsync (SQLite) or the chain of round trips a batch waits on
 * (PostgreSQL) never waits behind the thread that speaks SMTP and HTTP, nor blocks it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/connection.js';
import { openDatabase } from '../../db/open.js';
import type { EventRow } from '../../store/events.js';
import { createStore } from '../../store/index.js';
import { buildDeps } from '../runtime.js';
import type { IngestJob, IngestReply } from './ingest-writer.js';
import { expectThreadLookups, fileForEach } from './receive.js';
import { collectWhenIdle } from './collect-when-idle.js';
import { releaseAfterLarge } from './release-large.js';

const config = workerData as Config;
if (!config.secret) throw new Error('the ingest thread starts after MAILROOM_SECRET is loaded');
// The main thread has applied the migrations by now. One batch at a time: two connections suffice.
// The PostgreSQL driver loads only for a PostgreSQL database.
const db: Db = config.databaseUrl
  ? new (await import('../../db/postgres/db.js')).PostgresDb(config.databaseUrl, { max: 2 })
  : openDatabase({ file: config.dbFile, synchronous: config.dbSync });
const deps = buildDeps({
  mode: 'ingest-thread',
  store: createStore(db, config.secret),
  config,
  log: pino({ level: 'silent' }),
});
const port = parentPort!;
// The thread is Mailroom's own, so it follows the setting even in a process that embeds Mailroom.
if (config.heapGrowthPercent !== 0) collectWhenIdle();

port.on('message', (message: IngestJob | 'close') => {
  if (message === 'close') {
    void close();
    return;
  }
  // Group commit: what arrives while a batch is committing goes into the next transaction.
  deps.store.groupCommit
    .submit(
      () => fileOne(message),
      () => expectThreadLookups(deps.store, jobMessage(message), message.parsed),
    )
    .then(
      (reply) => {
        port.postMessage(reply);
        releaseAfterLarge(message.raw.byteLength);
      },
      (error: Error) => port.postMessage({ id: message.id, error: error.message } satisfies IngestReply),
    );
});

// Loading this thread's modules takes a core for a second or more: the server listens once it is
// done (mailroom.open), not while its first requests compete with it.
port.postMessage('ready');

/** A close that fails still ends the thread, with the error as before (the writer sees it). */
async function close(): Promise<void> {
  try {
    await db.close();
  } catch (error) {
    setImmediate(() => {
      throw error;
    });
  } finally {
    port.close();
  }
}

function jobMessage(job: IngestJob) {
  return {
    raw: Buffer.from(job.raw.buffer, job.raw.byteOffset, job.raw.byteLength),
    inboxes: job.inboxes,
    authResults: job.authResults,
    spam: job.spam,
    spamCheck: job.spamCheck,
    nullSender: job.nullSender,
    receivedAt: new Date(job.receivedAt),
  };
}

async function fileOne(job: IngestJob): Promise<IngestReply> {
  const events: EventRow[] = [];
  const message = jobMessage(job);
  const filed = await fileForEach(deps, message, job.parsed, events, job.folders);
  return { id: job.id, filed: filed.map((f) => ({ inboxId: f.inbox.id, uid: f.uid })), events };
}
