import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('a mail sent over SMTP is readable over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server.stop());

  it('stores and lists the message', async () => {
    await server.sendMail({
      from: 'Alice <alice@example.com>',
      to: server.inbox,
      subject: 'Hello',
      text: 'Hi agent',
    });
    const res = await server.api(`/emails?account=${server.inbox}`);
    expect(res.status).toBe(200);
    expect(res.json.data.emails).toHaveLength(1);
    expect(res.json.data.emails[0]).toMatchObject({
      uid: 1,
      from: 'alice@example.com',
      subject: 'Hello',
      folder: 'INBOX',
    });
    expect(res.json.data.emails[0].text).toContain('Hi agent');
  });
});
