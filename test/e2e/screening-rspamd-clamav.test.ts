// Engines: SQLite only: the SMTP door's answers to DATA after a real rspamd and a real clamd, which no storage engine changes (the stored `spam` and the webhook filter run on both in test/mailbox/spam-webhooks.test.ts).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClamd, TEST_VIRUS, TEST_VIRUS_NAME } from '../helpers/clamd.js';
import type { Clamd } from '../helpers/clamd.js';
import { freePort } from '../helpers/host.js';
import { GTUBE, GTUBE_ADD_HEADER, SOFT_REJECT_MARK, startRspamd } from '../helpers/rspamd.js';
import type { Rspamd } from '../helpers/rspamd.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp } from '../helpers/smtp-session.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

interface Listed {
  uid: number;
  subject: string;
  folder: string;
  spam: {
    score: number;
    required: number;
    action: string;
    symbols: { name: string; score: number }[];
  } | null;
}

const message = (subject: string, body: string) =>
  [
    'From: Sender <sender@example.com>',
    'To: owner@mailroom.test',
    `Subject: ${subject}`,
    `Message-ID: <${subject.replace(/\W/g, '-')}-${Math.random().toString(36).slice(2)}@example.com>`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    '',
  ].join('\r\n');

/** A message whose attachment (base64, as mail carries it) holds the test signature. */
const withInfectedAttachment = (subject: string, text: string) =>
  [
    'From: Sender <sender@example.com>',
    'To: owner@mailroom.test',
    `Subject: ${subject}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    text,
    '--b1',
    'Content-Type: application/octet-stream; name="invoice.exe"',
    'Content-Disposition: attachment; filename="invoice.exe"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from(`MZ\0\0 payload ${TEST_VIRUS} end`).toString('base64'),
    '--b1--',
    '',
  ].join('\r\n');

async function send(server: TestServer, raw: string) {
  const smtp = await openSmtp(server.mailroom.smtp.port);
  try {
    const { data } = await smtp.send('sender@example.com', [server.inbox], raw);
    return data!;
  } finally {
    await smtp.close();
  }
}

async function stored(server: TestServer, subject: string): Promise<Listed[]> {
  const found: Listed[] = [];
  for (const folder of ['INBOX', 'Spam']) {
    const res = await server.api(`/emails?account=${server.inbox}&folder=${folder}&limit=100`);
    found.push(...(res.json.data.emails as Listed[]).filter((e) => e.subject === subject));
  }
  return found;
}

async function screeningCounts(server: TestServer): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  return Object.fromEntries(
    [...text.matchAll(/^mailroom_screening_total\{outcome="(\w+)"\} (\d+)$/gm)].map((m) => [
      m[1],
      Number(m[2]),
    ]),
  );
}

describe('inbound mail screened by a real rspamd and a real clamd', () => {
  let rspamd: Rspamd;
  let clamd: Clamd;
  let server: TestServer;
  beforeAll(async () => {
    [rspamd, clamd] = await Promise.all([startRspamd(), startClamd()]);
    // The socket path form of MAILROOM_CLAMD here; the tcp:// form in the outage tests below.
    server = await startServer({ rspamdUrl: rspamd.url, clamd: clamd.socket });
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    await Promise.all([rspamd?.stop(), clamd?.stop()]);
  });

  it('refuses GTUBE with 550 5.7.1 and stores nothing', async () => {
    const reply = await send(server, message('Gtube', `Buy now.\r\n${GTUBE}`));
    expect(reply.code).toBe(550);
    expect(reply.text).toMatch(/^5\.7\.1 /);
    expect(await stored(server, 'Gtube')).toEqual([]);
  });

  it('refuses a virus with 554 5.7.1 naming the signature, stores nothing, and scans before rspamd', async () => {
    const reply = await send(server, withInfectedAttachment('Invoice', 'Please see the attachment.'));
    expect(reply.code).toBe(554);
    expect(reply.text).toMatch(/^5\.7\.1 /);
    expect(reply.text).toContain(TEST_VIRUS_NAME);
    expect(await stored(server, 'Invoice')).toEqual([]);

    // rspamd would answer 550 to this one: ClamAV speaks first.
    const both = await send(server, withInfectedAttachment('Invoice and spam', GTUBE));
    expect(both.code).toBe(554);
    expect(both.text).toContain(TEST_VIRUS_NAME);
  });

  it("files rspamd's add header into Spam, with its verdict on the Email", async () => {
    const reply = await send(server, message('Probably spam', `Cheap watches.\r\n${GTUBE_ADD_HEADER}`));
    expect(reply.code).toBe(250);
    const [email] = await stored(server, 'Probably spam');
    expect(email).toMatchObject({ folder: 'Spam', spam: { action: 'add header' } });
    expect(email!.spam!.score).toBeGreaterThanOrEqual(6);
    expect(email!.spam!.required).toBe(15);
    expect(email!.spam!.symbols.map((s) => s.name)).toContain('GTUBE');
    const read = await server.api(`/emails/${email!.uid}?account=${server.inbox}&folder=Spam`);
    expect(read.json.data.email.spam.action).toBe('add header');
  });

  it('files a clean message into INBOX with its score', async () => {
    const reply = await send(server, message('Lunch on Friday', 'Shall we meet at noon?'));
    expect(reply.code).toBe(250);
    const [email] = await stored(server, 'Lunch on Friday');
    expect(email).toMatchObject({ folder: 'INBOX', spam: { action: 'no action', required: 15 } });
  });

  it("answers rspamd's soft reject with 451 4.7.1 and stores nothing", async () => {
    const reply = await send(server, message(`Later ${SOFT_REJECT_MARK}`, 'Try me again.'));
    expect(reply.code).toBe(451);
    expect(reply.text).toMatch(/^4\.7\.1 /);
    expect(await stored(server, `Later ${SOFT_REJECT_MARK}`)).toEqual([]);
  });

  it('gives email.received for Spam only to a webhook made with includeSpam', async () => {
    const plain = await WebhookReceiver.start();
    const spammy = await WebhookReceiver.start();
    try {
      const made = [];
      for (const [receiver, includeSpam] of [
        [plain, undefined],
        [spammy, true],
      ] as const) {
        const res = await server.api('/webhooks', {
          body: { url: receiver.url, events: ['email.received'], ...(includeSpam ? { includeSpam } : {}) },
        });
        expect(res.status).toBe(201);
        made.push(res.json.data.webhook);
      }
      expect(made.map((w) => w.includeSpam)).toEqual([false, true]);

      expect((await send(server, message('Spam for hooks', GTUBE_ADD_HEADER))).code).toBe(250);
      expect((await send(server, message('Ham for hooks', 'A normal note.'))).code).toBe(250);
      const subjects = (r: WebhookReceiver) =>
        r.delivered.map((d) => `${d.json.data.email.subject} in ${d.json.data.email.folder}`);
      await eventually(() => subjects(spammy).length === 2 && subjects(plain).length === 1);
      expect(subjects(spammy).sort()).toEqual(['Ham for hooks in INBOX', 'Spam for hooks in Spam']);
      expect(subjects(plain)).toEqual(['Ham for hooks in INBOX']);

      const patched = await server.api(`/webhooks/${made[0].id}`, {
        method: 'PATCH',
        body: { includeSpam: true },
      });
      expect(patched.json.data.webhook.includeSpam).toBe(true);
      expect((await server.api(`/webhooks/${made[0].id}`)).json.data.webhook.includeSpam).toBe(true);
    } finally {
      await Promise.all([plain.close(), spammy.close()]);
    }
  });

  it('counts each outcome in /metrics', async () => {
    const counts = await screeningCounts(server);
    expect(counts).toEqual({ rejected: 1, tempfail: 1, spam: 2, virus: 2, review: 0 });
  });
});

describe('screening when rspamd or clamd is down', () => {
  let server: TestServer;
  let closedPort: number;
  let hung: net.Server;
  const hungSockets: net.Socket[] = [];
  beforeAll(async () => {
    closedPort = await freePort();
    // Takes connections and never answers: an rspamd that hangs.
    hung = net.createServer((socket) => hungSockets.push(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    server = await startServer({ clamd: `tcp://127.0.0.1:${closedPort}` });
  });
  afterAll(async () => {
    await server?.stop();
    for (const socket of hungSockets) socket.destroy();
    await new Promise((resolve) => hung.close(resolve));
  });

  it('answers 451 4.7.1 when clamd is unreachable (MAILROOM_CLAMD_FAIL=tempfail, the default)', async () => {
    const reply = await send(server, message('No scanner', 'hello'));
    expect(reply.code).toBe(451);
    expect(reply.text).toMatch(/^4\.7\.1 /);
    expect(await stored(server, 'No scanner')).toEqual([]);
    expect((await screeningCounts(server)).tempfail).toBe(1);
  });

  it('takes mail unscanned with MAILROOM_CLAMD_FAIL=open, and unscored when rspamd is unreachable (open, the default)', async () => {
    await server.restart(undefined, { clamdFail: 'open', rspamdUrl: `http://127.0.0.1:${closedPort}` });
    expect((await send(server, message('Taken anyway', 'hello'))).code).toBe(250);
    expect(await stored(server, 'Taken anyway')).toMatchObject([{ folder: 'INBOX', spam: null }]);
  });

  it('takes mail unscored when rspamd is slower than MAILROOM_RSPAMD_TIMEOUT_MS', async () => {
    const { port } = hung.address() as net.AddressInfo;
    await server.restart(undefined, { rspamdUrl: `http://127.0.0.1:${port}`, rspamdTimeoutMs: 300 });
    expect((await send(server, message('Slow filter', 'hello'))).code).toBe(250);
    expect(await stored(server, 'Slow filter')).toMatchObject([{ folder: 'INBOX', spam: null }]);
  });

  it('answers 451 4.7.1 when rspamd is unreachable with MAILROOM_RSPAMD_FAIL=tempfail', async () => {
    await server.restart(undefined, { rspamdFail: 'tempfail', rspamdUrl: `http://127.0.0.1:${closedPort}` });
    const reply = await send(server, message('Filter down', 'hello'));
    expect(reply.code).toBe(451);
    expect(reply.text).toMatch(/^4\.7\.1 /);
    expect(await stored(server, 'Filter down')).toEqual([]);
  });
});
