// npm install --save-dev mailroom-server vitest nodemailer @types/nodemailer
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { createMailroom, EmailWaitTimeout } from 'mailroom-server';
import { createMailroomClient } from 'mailroom-server/client';

// A whole mail server in this process: nothing written to disk, free ports.
const mailroom = createMailroom({
  memory: true,
  httpPort: 0,
  smtpPort: 0,
  verifyAuth: false,
  logLevel: 'silent',
});
let inbox: string; // agent@mailroom.test, made by the first start

beforeAll(async () => {
  await mailroom.start();
  inbox = mailroom.bootstrap!.inbox;
});
afterAll(() => mailroom.stop());
beforeEach(() => mailroom.reset()); // every test starts with empty inboxes

/** Your application, sending mail over SMTP as it does in production. */
async function signUp(address: string): Promise<void> {
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: mailroom.smtp.port });
  await smtp.sendMail({
    from: 'app@example.com',
    to: address,
    subject: 'Your code',
    text: 'Your code is 4711',
  });
}

test('waits for the mail the app sends in the background', async () => {
  void signUp(inbox);
  const email = await mailroom.waitForEmail({ account: inbox, subject: 'Your code' });
  expect(email.text).toContain('4711');
});

test('starts with an empty inbox, and says what it waited for', async () => {
  const waiting = mailroom.waitForEmail({ account: inbox, subject: 'Your code', timeoutMs: 300 });
  await expect(waiting).rejects.toThrow(EmailWaitTimeout);
  await expect(waiting).rejects.toThrow('no email with subject "Your code" came to agent@mailroom.test');
});

test('reads the same mail over HTTP with the typed client', async () => {
  await signUp(inbox);
  const client = createMailroomClient({ url: mailroom.http.url, apiKey: mailroom.bootstrap!.apiKey });
  const { data } = await client.GET('/emails', { params: { query: { account: inbox } } });
  expect(data?.data.emails.map((email) => email.subject)).toEqual(['Your code']);
  const email = await client.waitForEmail({ account: inbox, subject: 'Your code' });
  expect(email.from).toBe('app@example.com');
});
