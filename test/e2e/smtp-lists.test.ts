// Engines: SQLite only: the SMTP listener's answer to a blocked sender, a protocol rule; the lists' rules run on both engines in test/mailbox/address-lists.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';

describe('receive lists over SMTP', () => {
  let server: TestServer;
  let bob: { key: string; inbox: string };
  beforeAll(async () => {
    server = await startServer();
    bob = await server.addUser('bob');
  });
  afterAll(async () => server?.stop());

  const subjectsIn = async (account: string, key: string, folder: string) =>
    (await server.api(`/emails?account=${account}&folder=${folder}&limit=100`, { key })).json.data.emails.map(
      (e: { subject: string }) => e.subject,
    );
  const block = (entry: string, key: string, account?: string) =>
    server.api('/lists/receive/block', {
      method: 'POST',
      key,
      body: { entry, ...(account ? { account } : {}) },
    });

  it('answers a blocked envelope sender 550 5.7.1 at RCPT TO for that inbox, and delivers to the other recipient', async () => {
    expect((await block('pest.example', server.key, server.inbox)).status).toBe(201);
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const subject = 'from a blocked sender';
    const raw = rawMessage({ from: 'someone@pest.example', to: `${server.inbox}, ${bob.inbox}`, subject });
    const { rcpt, data } = await smtp.send('someone@mail.pest.example', [server.inbox, bob.inbox], raw);
    await smtp.close();
    expect(rcpt.map((r) => r.code)).toEqual([550, 250]);
    expect(rcpt[0]!.text).toMatch(/^5\.7\.1 /);
    expect(data?.code).toBe(250);
    expect(await subjectsIn(bob.inbox, bob.key, 'INBOX')).toContain(subject);
    for (const folder of ['INBOX', 'Spam'])
      expect(await subjectsIn(server.inbox, server.key, folder)).not.toContain(subject);
  });

  it('files mail whose header From is blocked, or outside a receive allow list, into Spam, never dropping it', async () => {
    expect((await block('pest@spam.example', server.key)).status).toBe(201);
    const allow = await server.api('/lists/receive/allow', {
      method: 'POST',
      key: bob.key,
      body: { entry: 'friends.example', account: bob.inbox },
    });
    expect(allow.status).toBe(201);
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const subject = 'header from a pest';
    const raw = rawMessage({
      from: 'Pest <pest@spam.example>',
      to: `${server.inbox}, ${bob.inbox}`,
      subject,
    });
    const { rcpt, data } = await smtp.send('bounces@relay.example', [server.inbox, bob.inbox], raw);
    expect(rcpt.map((r) => r.code)).toEqual([250, 250]);
    expect(data?.code).toBe(250);
    const friendly = rawMessage({ from: 'ann@friends.example', to: bob.inbox, subject: 'from a friend' });
    expect((await smtp.send('ann@friends.example', [bob.inbox], friendly)).data?.code).toBe(250);
    await smtp.close();

    expect(await subjectsIn(server.inbox, server.key, 'Spam')).toContain(subject);
    expect(await subjectsIn(server.inbox, server.key, 'INBOX')).not.toContain(subject);
    // Bob blocks nobody, but pest@ is outside his allow list.
    expect(await subjectsIn(bob.inbox, bob.key, 'Spam')).toContain(subject);
    const bobsInbox = await subjectsIn(bob.inbox, bob.key, 'INBOX');
    expect(bobsInbox).toContain('from a friend');
    expect(bobsInbox).not.toContain(subject);
  });
});
