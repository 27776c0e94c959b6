// Engines: SQLite only: the SMTP listener's limits and deadlines, a protocol rule; postgres-doors files mail over SMTP on PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDomain, addLocalInbox, addUser } from '../../src/mailbox/operations/admin.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import type { SmtpReply, SmtpSession } from '../helpers/smtp-session.js';

const MB = 1024 * 1024;

/** A message of about `bytes` bytes: short text lines, so no line limit is in the way. */
const bigMessage = (to: string, subject: string, bytes: number) =>
  rawMessage({
    from: 'big@example.com',
    to,
    subject,
    body: `${'x'.repeat(76)}\r\n`.repeat(Math.ceil(bytes / 78)),
  });

const subjectsOf = async (server: TestServer, account = server.inbox, key = server.key) =>
  (
    (await server.api(`/emails?account=${account}&limit=100`, { key })).json.data.emails as {
      subject: string;
    }[]
  ).map((e) => e.subject);

/** Sends one byte every `everyMs` until the connection closes; resolves to the reply that came. */
async function trickle(smtp: SmtpSession, text: string, everyMs: number): Promise<SmtpReply> {
  let open = true;
  void smtp.closed.then(() => (open = false));
  const reply = smtp.nextReply();
  for (let i = 0; open; i = (i + 1) % text.length) {
    smtp.write(text[i]!);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return reply;
}

describe('in-flight message budget', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ smtpInflightBytes: 6 * MB, maxMessageBytes: 5 * MB });
  });
  afterAll(async () => server.stop());

  it('answers 452 4.3.1 to messages that do not fit in memory now, and takes them on retry', async () => {
    const sessions = await Promise.all(Array.from({ length: 6 }, () => openSmtp(server.mailroom.smtp.port)));
    const results = await Promise.all(
      sessions.map((smtp, i) =>
        smtp.send('big@example.com', [server.inbox], bigMessage(server.inbox, `Parallel ${i}`, 2 * MB)),
      ),
    );
    await Promise.all(sessions.map((s) => s.close()));
    const codes = results.map((r) => r.data!.code);
    const stored = codes.filter((c) => c === 250).length;
    // 6 MB holds at most three 2 MB messages at a time, and the first ones always fit.
    expect(stored).toBeGreaterThanOrEqual(1);
    expect(stored).toBeLessThanOrEqual(3);
    for (const result of results.filter((r) => r.data!.code !== 250)) {
      expect(result.data!.code).toBe(452);
      expect(result.data!.text).toMatch(/^4\.3\.1 /);
    }

    // The sender retries later: the budget was given back, each refused one now gets in.
    for (const i of codes.flatMap((c, i) => (c === 250 ? [] : [i]))) {
      const smtp = await openSmtp(server.mailroom.smtp.port);
      const retry = await smtp.send(
        'big@example.com',
        [server.inbox],
        bigMessage(server.inbox, `Parallel ${i}`, 2 * MB),
      );
      await smtp.close();
      expect(retry.data!.code).toBe(250);
    }
    expect((await subjectsOf(server)).filter((s) => s.startsWith('Parallel ')).sort()).toEqual(
      Array.from({ length: 6 }, (_, i) => `Parallel ${i}`),
    );
  });

  it('refuses at MAIL FROM a declared SIZE that does not fit now, and accepts it once memory is free', async () => {
    const holder = await openSmtp(server.mailroom.smtp.port);
    await holder.command('EHLO client.example');
    expect((await holder.command('MAIL FROM:<big@example.com> SIZE=5000000')).code).toBe(250);
    expect((await holder.command(`RCPT TO:<${server.inbox}>`)).code).toBe(250);
    expect((await holder.command('DATA')).code).toBe(354);
    const message = bigMessage(server.inbox, 'Holder', 4_900_000);
    const half = message.indexOf('\r\n', message.length / 2) + 2;
    holder.write(message.slice(0, half));

    const other = await openSmtp(server.mailroom.smtp.port);
    await other.command('EHLO client.example');
    const refused = await other.command('MAIL FROM:<other@example.com> SIZE=2000000');
    expect(refused.code).toBe(452);
    expect(refused.text).toMatch(/^4\.3\.1 /);

    expect((await holder.message(message.slice(half))).code).toBe(250);
    await holder.close();
    expect((await other.command('MAIL FROM:<other@example.com> SIZE=2000000')).code).toBe(250);
    await other.close();
  });
});

describe('SMTP deadlines', () => {
  let server: TestServer;
  const open: SmtpSession[] = [];
  const connect = async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    open.push(smtp);
    return smtp;
  };
  beforeAll(async () => {
    server = await startServer({
      smtpMaxConnectionsPerIp: 2,
      smtpTrustedNetworks: [],
      // Seconds, not tenths: client and server share this process, and at load 15 it can go
      // unscheduled for half a second; when it wakes, the server's deadline timer runs before
      // it reads the bytes that came meanwhile, and a prompt client was cut off (421).
      smtpCommandTimeout: 2,
      smtpDataGrace: 2,
      smtpMinDataRate: 2000,
      smtpDataTimeout: 60,
    });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  afterAll(async () => server.stop());

  it('cuts off a client trickling a command line, and one trickling a message, freeing both slots', async () => {
    const slowCommand = await connect();
    const slowData = await connect();
    await slowData.command('EHLO client.example');
    await slowData.command('MAIL FROM:<slow@example.com>');
    await slowData.command(`RCPT TO:<${server.inbox}>`);
    expect((await slowData.command('DATA')).code).toBe(354);
    // Both slots of this address are taken.
    const refused = await connect();
    expect(refused.greeting.code).toBe(421);

    const [commandCut, dataCut] = await Promise.all([
      trickle(slowCommand, 'EHLO client.example\r\n'.slice(0, -2), 100),
      trickle(slowData, 'Subject: slow\r\n', 20),
    ]);
    expect(commandCut.code).toBe(421);
    expect(dataCut.code).toBe(421);
    expect(dataCut.text).toMatch(/^4\.4\.2 /);
    await Promise.all([slowCommand.closed, slowData.closed]);

    // The slots are free again: another client gets in and delivers.
    let next = await connect();
    for (let i = 0; i < 20 && next.greeting.code !== 220; i++) {
      await new Promise((r) => setTimeout(r, 50));
      next = await connect();
    }
    const sent = await next.send(
      'fast@example.com',
      [server.inbox],
      rawMessage({ from: 'fast@example.com', to: server.inbox, subject: 'After the slow ones' }),
    );
    expect(sent.data?.code).toBe(250);
    expect(await subjectsOf(server)).not.toContain('slow');
  });

  it('does not cut off a client that is slow only between commands while the server works', async () => {
    const smtp = await connect();
    const sent = await smtp.send(
      'fast@example.com',
      [server.inbox],
      bigMessage(server.inbox, 'Takes a while to store', 3 * MB),
    );
    expect(sent.data?.code).toBe(250);
    // The next command, well within the deadline of its own, is still answered.
    expect((await smtp.command('NOOP')).code).toBe(250);
  });
});

describe('whole DATA deadline', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ smtpDataTimeout: 1, smtpMinDataRate: 1, smtpDataGrace: 0.1 });
  });
  afterAll(async () => server.stop());

  it('cuts off a message that keeps the minimum rate but never ends', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    await smtp.command('MAIL FROM:<steady@example.com>');
    await smtp.command(`RCPT TO:<${server.inbox}>`);
    expect((await smtp.command('DATA')).code).toBe(354);
    const cut = await trickle(smtp, 'Subject: steady\r\n', 10);
    expect(cut.code).toBe(421);
    expect(cut.text).toMatch(/^4\.4\.2 /);
    await smtp.closed;
  });
});

describe('recipient probing and postmaster', () => {
  let server: TestServer;
  let domain: string;
  beforeAll(async () => {
    server = await startServer({ smtpMaxFailedRecipients: 3 });
    domain = server.inbox.split('@')[1]!;
  });
  afterAll(async () => server.stop());

  it('hangs up with 421 after too many unknown recipients in one session', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    await smtp.command('MAIL FROM:<probe@example.com>');
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      codes.push((await smtp.command(`RCPT TO:<guess${i}@${domain}>`)).code);
      // Known recipients do not count.
      codes.push((await smtp.command(`RCPT TO:<${server.inbox}>`)).code);
    }
    const last = await smtp.command(`RCPT TO:<guess3@${domain}>`);
    expect(codes).toEqual([550, 250, 550, 250, 550, 250]);
    expect(last.code).toBe(421);
    await smtp.closed;
  });

  it('accepts postmaster@ of every hosted domain, in any case, into the oldest inbox', async () => {
    await addDomain(server.mailroom.deps, 'second.test');
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const result = await smtp.send(
      'remote-admin@example.com',
      [`PostMaster@${domain}`, 'postmaster@SECOND.test', 'Postmaster'],
      rawMessage({
        from: 'remote-admin@example.com',
        to: `postmaster@${domain}`,
        subject: 'To the postmaster',
      }),
    );
    await smtp.close();
    expect(result.rcpt.map((r) => r.code)).toEqual([250, 250, 250]);
    expect(result.data?.code).toBe(250);
    // All three lead to the bootstrap inbox: one copy.
    expect((await subjectsOf(server)).filter((s) => s === 'To the postmaster')).toHaveLength(1);
  });
});

describe('postmaster set by MAILROOM_POSTMASTER', () => {
  let server: TestServer;
  let keeper: { key: string; inbox: string };
  beforeAll(async () => {
    server = await startServer({ postmaster: 'keeper@mailroom.test' });
    keeper = await server.addUser('keeper');
  });
  afterAll(async () => server.stop());

  it('delivers postmaster@ to the configured inbox', async () => {
    await server.sendMail({
      from: 'a@example.com',
      to: 'postmaster@mailroom.test',
      subject: 'For the keeper',
      text: 'x',
    });
    expect(await subjectsOf(server, keeper.inbox, keeper.key)).toEqual(['For the keeper']);
    expect(await subjectsOf(server)).not.toContain('For the keeper');
  });

  it('keeps a real postmaster inbox when there is one', async () => {
    const deps = server.mailroom.deps;
    await addLocalInbox(deps, 'postmaster@mailroom.test', (await addUser(deps, 'pm')).id);
    await server.sendMail({
      from: 'a@example.com',
      to: 'postmaster@mailroom.test',
      subject: 'For the real one',
      text: 'x',
    });
    expect(await subjectsOf(server, keeper.inbox, keeper.key)).not.toContain('For the real one');
  });
});

describe('default connection slots', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The client, 127.0.0.1, stands for an outside sender: no trusted networks.
    server = await startServer({ smtpTrustedNetworks: [] });
  });
  afterAll(async () => server.stop());

  it('gives one address outside the trusted networks at most 10 of the 200 connections', async () => {
    const sessions = await Promise.all(Array.from({ length: 11 }, () => openSmtp(server.mailroom.smtp.port)));
    const codes = sessions.map((s) => s.greeting.code).sort();
    await Promise.all(sessions.map((s) => s.close()));
    expect(codes.filter((c) => c === 220)).toHaveLength(10);
    expect(codes.filter((c) => c === 421)).toHaveLength(1);
  });
});
