import type { SendMailOptions } from 'nodemailer';
import { eventually } from './server.js';
import type { TestServer } from './server.js';

/**
 * Sends `mail` over SMTP once `waiting` is parked in the server's waiting room, and returns what
 * `waiting` resolved to; throws if it had resolved before the mail was sent.
 */
export async function deliverDuringWait<T>(
  server: TestServer,
  waiting: Promise<T>,
  mail: SendMailOptions,
): Promise<T> {
  let resolved = false;
  const tracked = waiting.then((value) => ((resolved = true), value));
  await eventually(() => server.mailroom.deps.waiters!.size === 1);
  if (resolved) throw new Error('the wait ended before the mail was sent');
  await server.sendMail(mail);
  return tracked;
}
