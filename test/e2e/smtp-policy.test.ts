// Engines: SQLite only: the SMTP listener's replies to senders and recipients, a protocol rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';

describe('inbound SMTP recipient policy', () => {
  let server: TestServer;
  let bob: { key: string; inbox: string };
  beforeAll(async () => {
    server = await startServer();
    bob = await server.addUser('bob');
  });
  afterAll(async () => server.stop());

  const inboxOf = async (account: string, key: string, folder = 'INBOX') =>
    (await server.api(`/emails?account=${account}&folder=${folder}&limit=100`, { key })).json.data.emails as {
      uid: number;
      subject: string;
      to: string[];
    }[];

  it('greets, and advertises SIZE with the configured limit', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    expect(smtp.greeting.code).toBe(220);
    const ehlo = await smtp.command('EHLO client.example');
    expect(ehlo.code).toBe(250);
    expect(ehlo.text).toMatch(new RegExp(`^SIZE ${server.mailroom.config.maxMessageBytes}$`, 'm'));
    await smtp.close();
  });

  it('answers each kind of recipient as the contract says', async () => {
    const [domain] = server.inbox.split('@').slice(1);
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    expect((await smtp.command('MAIL FROM:<alice@example.com>')).code).toBe(250);

    const known = await smtp.command(`RCPT TO:<${server.inbox}>`);
    expect(known.code).toBe(250);
    const upper = await smtp.command(`RCPT TO:<${server.inbox.toUpperCase()}>`);
    expect(upper.code).toBe(250);
    const unknown = await smtp.command(`RCPT TO:<nobody@${domain}>`);
    expect(unknown.code).toBe(550);
    expect(unknown.text).toMatch(/^5\.1\.1 /);
    const relay = await smtp.command('RCPT TO:<someone@elsewhere.example>');
    expect(relay.code).toBe(550);
    expect(relay.text).toMatch(/^5\.7\.1 /);
    const tagOfUnknown = await smtp.command(`RCPT TO:<nobody+x@${domain}>`);
    expect(tagOfUnknown.code).toBe(550);
    await smtp.close();
  });

  it('delivers name+tag@domain to name@domain, and keeps the tagged address in To', async () => {
    const [local, domain] = server.inbox.split('@');
    const tagged = `${local}+orders@${domain}`;
    await server.sendMail({ from: 'shop@example.com', to: tagged, subject: 'Tagged delivery', text: 'x' });
    const emails = await inboxOf(server.inbox, server.key);
    const found = emails.find((e) => e.subject === 'Tagged delivery');
    expect(found?.to).toEqual([tagged]);
  });

  it('stores one copy for each local inbox, once per inbox however it was named', async () => {
    const [local, domain] = server.inbox.split('@');
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const result = await smtp.send(
      'alice@example.com',
      [
        server.inbox,
        bob.inbox,
        `${local}+again@${domain}`,
        server.inbox.toUpperCase(),
        'x@elsewhere.example',
      ],
      rawMessage({ from: 'alice@example.com', to: `${server.inbox}, ${bob.inbox}`, subject: 'For both' }),
    );
    await smtp.close();
    expect(result.rcpt.map((r) => r.code)).toEqual([250, 250, 250, 250, 550]);
    expect(result.data?.code).toBe(250);

    const mine = (await inboxOf(server.inbox, server.key)).filter((e) => e.subject === 'For both');
    const bobs = (await inboxOf(bob.inbox, bob.key)).filter((e) => e.subject === 'For both');
    expect(mine).toHaveLength(1);
    expect(bobs).toHaveLength(1);
  });

  it('accepts 100 recipients and answers 452 to the 101st, then stores one copy per inbox', async () => {
    const tagged = (address: string, tag: number) => address.replace('@', `+t${tag}@`);
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    await smtp.command('MAIL FROM:<bulk@example.com>');
    for (let i = 0; i < 100; i++) {
      const rcpt = await smtp.command(`RCPT TO:<${tagged(i % 2 ? server.inbox : bob.inbox, i)}>`);
      expect(rcpt.code).toBe(250);
    }
    const over = await smtp.command(`RCPT TO:<${tagged(server.inbox, 100)}>`);
    expect(over.code).toBe(452);
    expect(over.text).toMatch(/^4\.5\.3 /);
    const data = await smtp.data(rawMessage({ from: 'bulk@example.com', to: server.inbox, subject: 'Bulk' }));
    expect(data.code).toBe(250);
    await smtp.close();
    expect((await inboxOf(server.inbox, server.key)).filter((e) => e.subject === 'Bulk')).toHaveLength(1);
    expect((await inboxOf(bob.inbox, bob.key)).filter((e) => e.subject === 'Bulk')).toHaveLength(1);
  });

  it('answers 250 only once the message is readable, and adds a Received: header', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const result = await smtp.send(
      'alice@example.com',
      [server.inbox],
      rawMessage({ from: 'alice@example.com', to: server.inbox, subject: 'Durable' }),
    );
    await smtp.close();
    expect(result.data?.code).toBe(250);
    const uid = Number(/stored (\d+)/.exec(result.data!.text)?.[1]);
    // No polling: the 250 means the commit already happened.
    const read = await server.api(`/emails/${uid}?account=${server.inbox}`);
    expect(read.status).toBe(200);
    expect(read.json.data.email.subject).toBe('Durable');

    const raw = await server.api(`/emails/${uid}/raw?account=${server.inbox}`);
    const firstHeader = raw.text.split(/\r?\n(?![ \t])/)[0]!;
    expect(firstHeader).toMatch(/^Received: from client\.example \((\S+ )?\[127\.0\.0\.1\]\)/);
    expect(firstHeader).toContain(`by ${server.mailroom.config.hostname}`);
    expect(firstHeader).toContain(`for <${server.inbox}>`);
  });

  it('refuses DATA before any accepted recipient', async () => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    await smtp.command('MAIL FROM:<alice@example.com>');
    expect((await smtp.command('RCPT TO:<x@elsewhere.example>')).code).toBe(550);
    const data = await smtp.command('DATA');
    expect(data.code).toBeGreaterThanOrEqual(500);
    await smtp.close();
  });
});

describe('inbound SMTP limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The client is 127.0.0.1: trusted unless the list leaves it out.
    server = await startServer({
      smtpMaxConnectionsPerIp: 2,
      smtpMessagesPerMinutePerIp: 3,
      smtpTrustedNetworks: [],
    });
  });
  afterAll(async () => server.stop());

  it('refuses a connection over the per-IP limit with 421, and accepts again once one closes', async () => {
    const first = await openSmtp(server.mailroom.smtp.port);
    const second = await openSmtp(server.mailroom.smtp.port);
    expect(first.greeting.code).toBe(220);
    expect(second.greeting.code).toBe(220);
    const third = await openSmtp(server.mailroom.smtp.port);
    expect(third.greeting.code).toBe(421);
    await third.closed;
    // A refused connection must not free a slot: the first two are still open.
    const again = await openSmtp(server.mailroom.smtp.port);
    expect(again.greeting.code).toBe(421);
    await again.closed;
    await first.close();
    // onClose runs when the server sees the socket end; a new connection may race it once.
    let fourth = await openSmtp(server.mailroom.smtp.port);
    for (let i = 0; i < 20 && fourth.greeting.code !== 220; i++) {
      await fourth.close();
      await new Promise((r) => setTimeout(r, 50));
      fourth = await openSmtp(server.mailroom.smtp.port);
    }
    expect(fourth.greeting.code).toBe(220);
    await Promise.all([second.close(), fourth.close()]);
  });

  it('answers 4xx to messages over the per-IP rate and stores none of them', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const smtp = await openSmtp(server.mailroom.smtp.port);
      const result = await smtp.send(
        'alice@example.com',
        [server.inbox],
        rawMessage({ from: 'alice@example.com', to: server.inbox, subject: `Rate ${i}` }),
      );
      codes.push(result.data!.code);
      await smtp.close();
    }
    expect(codes).toEqual([250, 250, 250, 451, 451]);
    const list = await server.api(`/emails?account=${server.inbox}`);
    expect(list.json.data.emails.map((e: { subject: string }) => e.subject).sort()).toEqual([
      'Rate 0',
      'Rate 1',
      'Rate 2',
    ]);
  });
});
