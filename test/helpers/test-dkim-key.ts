import { newDkimKeyPair } from '../../src/mail/dkim-key.js';

let pem: Promise<string> | undefined;

/**
 * One DKIM key (RSA 2048, as a new domain gets) for every test server and in-process mailbox of
 * this test process, given as MAILROOM_DKIM_KEY: making one costs 100-300 ms of CPU, which made
 * it the largest part of starting a test server. Tests about a new domain's key add the domain
 * without one (test/mailbox/admin.test.ts).
 */
export function testDkimKey(): Promise<string> {
  pem ??= newDkimKeyPair().then((pair) => pair.privateKey);
  return pem;
}
