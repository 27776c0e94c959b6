// Engines: SQLite only: the generated HTTP client, a door; postgres-doors calls HTTP on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EmailWaitTimeout,
  MailroomApiError,
  createMailroomAdminClient,
  createMailroomClient,
} from '../../src/client/index.js';
import type { MailroomClient } from '../../src/client/index.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const ADMIN_TOKEN = 'client-test-admin-token-0123456789';

describe('mailroom-server/client: the typed HTTP client', () => {
  let server: TestServer;
  let client: MailroomClient;
  beforeAll(async () => {
    server = await startServer({ adminToken: ADMIN_TOKEN });
    client = createMailroomClient({ url: `${server.baseUrl}/`, apiKey: server.key });
  });
  afterAll(async () => server.stop());

  const mail = (subject: string) =>
    server.sendMail({ from: 'alice@example.com', to: server.inbox, subject, text: `About ${subject}` });

  it('calls the API by path with typed parameters and answers', async () => {
    const accounts = await client.GET('/accounts');
    expect(accounts.data?.data.accounts.map((a) => a.address)).toEqual([server.inbox]);

    const sent = await client.POST('/emails/send', {
      body: { from: server.inbox, to: server.inbox, subject: 'To myself', text: 'Hi me' },
      headers: { 'Idempotency-Key': 'client-test-1' },
    });
    expect(sent.data?.data.delivery).toEqual([{ recipient: server.inbox, status: 'delivered' }]);
    const list = await client.GET('/emails', {
      params: { query: { account: server.inbox, subject: 'To myself' } },
    });
    expect(list.data?.data.emails.map((e) => e.subject)).toEqual(['To myself']);
    const emptied = await client.DELETE('/emails', {
      params: { query: { account: server.inbox, folder: 'INBOX' } },
    });
    expect(emptied.data?.data).toMatchObject({ folder: 'INBOX', count: 1, movedTo: 'Trash' });

    const refused = await client.GET('/emails', { params: { query: { account: 'someone@else.test' } } });
    expect(refused.response.status).toBe(403);
    expect(refused.error?.error.code).toBe('forbidden');
  });

  it('waits for mail over the long-poll and answers the whole email', async () => {
    const waiting = client.waitForEmail({
      account: server.inbox,
      subject: 'Welcome aboard',
      timeoutMs: 20_000,
    });
    await mail('Welcome aboard');
    const email = await waiting;
    expect(email.subject).toBe('Welcome aboard');
    expect(email.html).toBeDefined(); // read whole, not the list item
  });

  it('keeps long-polling until its own timeout, the last request cut off at it', async () => {
    const waits: (string | null)[] = [];
    const recording = createMailroomClient({
      url: server.baseUrl,
      apiKey: server.key,
      fetch: (request) => {
        waits.push(new URL(request.url).searchParams.get('wait'));
        return fetch(request);
      },
    });
    const started = Date.now();
    const error = await recording
      .waitForEmail({ account: server.inbox, subject: 'Not this one', timeoutMs: 3_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmailWaitTimeout);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
    // wait=2 ends a second before the deadline; wait=1 covers the rest and is cut off; then the
    // latest mail is listed for the message (no wait).
    expect(waits).toEqual(['2', '1', null]);

    const found = recording.waitForEmail({
      account: server.inbox,
      subject: 'Second poll',
      timeoutMs: 20_000,
    });
    await mail('Second poll');
    expect((await found).subject).toBe('Second poll');
  });

  it('rejects with the same timeout error as the in-process helper', async () => {
    const options = { account: server.inbox, subject: 'Never coming', timeoutMs: 1_200 };
    const overHttp = await client.waitForEmail(options).catch((e: unknown) => e);
    const inProcess = await server.mailroom.waitForEmail(options).catch((e: unknown) => e);
    expect(overHttp).toBeInstanceOf(EmailWaitTimeout);
    expect(inProcess).toBeInstanceOf(EmailWaitTimeout);
    expect((overHttp as Error).message).toBe((inProcess as Error).message);
    expect((overHttp as Error).message).toContain('"Second poll" from alice@example.com');
  });

  it('turns an API refusal during a wait into MailroomApiError with its code', async () => {
    const error = await client.waitForEmail({ account: 'someone@else.test' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailroomApiError);
    expect(error).toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('reaches the admin API with its own client and token', async () => {
    const admin = createMailroomAdminClient({ url: server.baseUrl, token: ADMIN_TOKEN });
    const created = await admin.POST('/users', { body: { name: 'from-client' } });
    expect(created.response.status).toBe(201);
    const users = await admin.GET('/users');
    expect(users.data?.data.users.map((u) => u.name)).toContain('from-client');
  });

  it('works without a socket through mailroom.fetch', async () => {
    const inProcess = createMailroomClient({
      url: 'http://mailroom.invalid',
      apiKey: server.key,
      fetch: server.mailroom.fetch,
    });
    expect((await inProcess.GET('/accounts')).data?.data.accounts[0]!.address).toBe(server.inbox);
  });
});
