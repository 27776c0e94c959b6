import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('a message with giant address lists (issue 10, finding 7)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server.stop());

  it('keeps the first 100 of each list, says how many there were, and keeps list pages small', async () => {
    const many = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => `${tag}${i}@example.org`).join(',\r\n ');
    const raw = [
      'From: crowd@example.org',
      `To: ${server.inbox},\r\n ${many(200_000, 'r')}`,
      `Cc: ${many(101, 'c')}`,
      'Subject: everyone',
      '',
      'hello all',
      '',
    ].join('\r\n');
    await server.sendRaw(raw, { from: 'crowd@example.org', to: [server.inbox] });
    await server.sendRaw('From: a@example.org\r\nSubject: plain\r\n\r\nhi\r\n', {
      from: 'a@example.org',
      to: [server.inbox],
    });

    const list = await server.api(`/emails?account=${server.inbox}`);
    expect(list.status).toBe(200);
    // One such message once made a three-item page 34 MB.
    expect(list.text.length).toBeLessThan(64 * 1024);
    const [plain, crowd] = list.json.data.emails;
    expect(plain.subject).toBe('plain');
    expect(plain.addressTotals).toBeUndefined();
    expect(crowd.subject).toBe('everyone');
    expect(crowd.to).toHaveLength(100);
    expect(crowd.to[0]).toBe(server.inbox);
    expect(crowd.cc).toHaveLength(100);
    expect(crowd.addressTotals.cc).toBe(101);
    // The To field was cut before parsing, so its count is the estimate from its commas.
    expect(crowd.addressTotals.to).toBeGreaterThanOrEqual(200_000);

    const read = await server.api(`/emails/${crowd.uid}?account=${server.inbox}`);
    expect(read.json.data.email.addressTotals).toEqual(crowd.addressTotals);
  });
});
