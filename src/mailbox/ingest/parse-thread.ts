/**
 * Worker-thread entry: parses raw messages off the thread that speaks SMTP and HTTP. A message
 * that takes too long is the pool's business: it terminates this thread and starts another.
 */
import { parentPort } from 'node:worker_threads';
import { parseEmail } from '../../mail/parse.js';
import { parseReceived } from '../../mail/screening/parse-screened.js';
import type { ParseJob, ParseReply } from './parse-pool.js';
import { releaseAfterLarge } from './release-large.js';

const port = parentPort!;

port.on('message', (job: ParseJob) => {
  void answer(job).then((reply) => {
    port.postMessage(reply);
    releaseAfterLarge(job.raw.byteLength);
  });
});
port.postMessage('ready');

async function answer(job: ParseJob): Promise<ParseReply> {
  try {
    const raw = Buffer.from(job.raw.buffer, job.raw.byteOffset, job.raw.byteLength);
    if (job.attachmentId !== undefined) {
      const parsed = await parseEmail(raw, { content: { only: job.attachmentId } });
      return { id: job.id, attachment: parsed.attachments.find((a) => a.id === job.attachmentId) ?? null };
    }
    // The caller stores the raw message and needs only the attachments' metadata.
    return { id: job.id, parsed: await parseReceived(raw) };
  } catch (error) {
    return { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
}
