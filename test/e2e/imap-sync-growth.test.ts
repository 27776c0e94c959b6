import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { imapErrorText, rawMessage, startDovecot } from '../helpers/dovecot.js';
import { ADMIN_TOKEN, FAST_IMAP, connectAndSync } from '../helpers/imap-setup.js';
import { fillMaildir } from '../helpers/maildir.js';
import type { TestServer } from '../helpers/server.js';
import { startServer } from '../helpers/server.js';

// Issue 17 item 9: the initial sync was quadratic (each message looked for an unlinked local copy
// by walking the whole folder), so 20,000 messages took minutes. Four times the mail must take
// about four times as long, not sixteen; the ratio is asserted, never the time.
const SMALL = 1000;

describe('initial IMAP sync time grows linearly with the mailbox', { timeout: 240_000 }, () => {
  let dovecot: Dovecot;
  let capture: CaptureServer;
  let server: TestServer;
  beforeAll(async () => {
    dovecot = await startDovecot();
    capture = await startCaptureServer();
    server = await startServer({ adminToken: ADMIN_TOKEN, imapOptions: { ...FAST_IMAP, batchSize: 500 } });
  });
  afterAll(async () => {
    await server?.stop();
    await capture?.close();
    await dovecot?.stop();
  });

  async function syncSeconds(user: string, count: number): Promise<number> {
    dovecot.addUser(user, `${user}-password`);
    fillMaildir(dovecot, user, count, (i) =>
      rawMessage({ subject: `Message ${i} of ${user}`, text: `Body ${i} ${'x'.repeat(1500)}` }),
    );
    // Dovecot indexes a Maildir on its first SELECT: done here, so only Mailroom's work is timed.
    const other = await dovecot.client(user);
    await other.mailboxOpen('INBOX').catch((err: unknown) => {
      throw new Error(`SELECT INBOX of ${user}: ${imapErrorText(err)}`, { cause: err });
    });
    await other.logout();
    return connectAndSync(
      server,
      { address: `${user}@example.org`, imapUrl: dovecot.url(user), smtpUrl: capture.url },
      count,
    );
  }

  it('syncs 4x the messages in well under 16x the time', async () => {
    // A warm-up so the first timed sync pays no start-up costs the second one does not.
    await syncSeconds('warmup', 200);
    const small = await syncSeconds('small', SMALL);
    const large = await syncSeconds('large', SMALL * 4);
    const ratio = large / small;
    console.log(
      `initial sync: ${SMALL} in ${small.toFixed(2)} s, ${SMALL * 4} in ${large.toFixed(2)} s, ratio ${ratio.toFixed(1)}`,
    );
    expect(ratio).toBeLessThan(6);
  });
});
