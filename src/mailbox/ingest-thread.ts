/**
 * Worker-thread entry: parses inbound messages and files them in group-commit batches on its
 * own connection, so a commit's fsync never blocks the thread that speaks SMTP and HTTP.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import type { Config } from '../config.js';
import { openDatabase } from '../db/open.js';
import { EventBus } from '../events/bus.js';
import { parseEmail } from '../mail/parse.js';
import type { EventRow } from '../store/events.js';
import { createStore } from '../store/index.js';
import type { IngestJob, IngestReply } from './ingest-writer.js';
import { fileForEach } from './receive.js';

const config = workerData as Config;
const db = openDatabase({ file: config.dbFile, synchronous: config.dbSync });
const deps = { store: createStore(db), config, bus: new EventBus(), log: pino({ level: 'silent' }) };
const port = parentPort!;
let queue: IngestJob[] = [];
let running = false;

port.on('message', (message: IngestJob | 'close') => {
  if (message === 'close') {
    db.close();
    port.close();
    return;
  }
  queue.push(message);
  if (!running) void drain();
});

async function drain(): Promise<void> {
  running = true;
  while (queue.length > 0) {
    const batch = queue;
    queue = [];
    const parsed = await Promise.all(batch.map((job) => parseEmail(Buffer.from(job.raw))));
    const replies = writeBatch(batch, parsed);
    for (const reply of replies) port.postMessage(reply);
  }
  running = false;
}

function writeBatch(batch: IngestJob[], parsed: Awaited<ReturnType<typeof parseEmail>>[]): IngestReply[] {
  const fileOne = (job: IngestJob, i: number): IngestReply => {
    const events: EventRow[] = [];
    const inboxes = job.inboxIds
      .map((id) => deps.store.inboxes.get(id))
      .filter((inbox) => inbox !== undefined);
    const message = {
      raw: Buffer.from(job.raw),
      inboxes,
      authResults: job.authResults,
      spam: job.spam,
      receivedAt: new Date(job.receivedAt),
    };
    const filed = fileForEach(deps, message, parsed[i]!, events);
    return { id: job.id, filed: filed.map((f) => ({ inboxId: f.inbox.id, uid: f.uid })), events };
  };
  try {
    return db.transaction(() => batch.map(fileOne));
  } catch {
    return batch.map((job, i) => {
      try {
        return db.transaction(() => fileOne(job, i));
      } catch (error) {
        return { id: job.id, error: (error as Error).message };
      }
    });
  }
}
