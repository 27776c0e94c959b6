import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { listEmails, readEmail } from '../../src/mailbox/reading/read.js';
import { inProcessInbox } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

describe('a message with giant address lists (issue 10, finding 7)', () => {
  let box: InProcess;
  beforeAll(async () => {
    box = await inProcessInbox('crowd@mailroom.test');
  });
  afterAll(async () => box?.close());

  it('keeps the first 100 of each list, says how many there were, and keeps list pages small', async () => {
    const account = box.inbox.address;
    const many = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => `${tag}${i}@example.org`).join(',\r\n ');
    // 20,000 addresses: about 400 KB, far past the 32 KB at which a field is cut before parsing.
    const raw = [
      'From: crowd@example.org',
      `To: ${account},\r\n ${many(20_000, 'r')}`,
      `Cc: ${many(101, 'c')}`,
      'Subject: everyone',
      '',
      'hello all',
      '',
    ].join('\r\n');
    await box.deliverRaw(raw);
    await box.deliverRaw('From: a@example.org\r\nSubject: plain\r\n\r\nhi\r\n');

    const list = await listEmails(box.deps, box.who, ListEmailsQuery.parse({ account }));
    // One such message once made a three-item page 34 MB.
    expect(JSON.stringify(list).length).toBeLessThan(64 * 1024);
    const [plain, crowd] = list.emails;
    expect(plain!.subject).toBe('plain');
    expect(plain!.addressTotals).toBeUndefined();
    expect(crowd!.subject).toBe('everyone');
    expect(crowd!.to).toHaveLength(100);
    expect(crowd!.to[0]).toBe(account);
    expect(crowd!.cc).toHaveLength(100);
    expect(crowd!.addressTotals!.cc).toBe(101);
    // The To field was cut before parsing, so its count is the estimate from its commas.
    expect(crowd!.addressTotals!.to).toBeGreaterThanOrEqual(20_000);

    const read = await readEmail(box.deps, box.who, account, crowd!.uid);
    expect(read.addressTotals).toEqual(crowd!.addressTotals);
  });
});
