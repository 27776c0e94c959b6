// Engines: SQLite only: the Email's extractedText and extractedHtml in the OpenAPI document; the fields' content on the Email, in webhooks and in the event feed is test/mailbox/extracted-text.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('extractedText and extractedHtml on the Email (contract 13)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.stop());

  it('documents both fields in the OpenAPI Email schema', async () => {
    const res = await server.api('/api/v1/openapi.json', { key: null });
    const email = res.json.components.schemas.Email;
    expect(email.properties.extractedText.type).toBe('string');
    expect(email.properties.extractedHtml.type).toBe('string');
    expect(email.required).toContain('extractedText');
  });
});
