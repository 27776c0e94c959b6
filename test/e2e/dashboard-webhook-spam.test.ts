// Engines: SQLite only: the dashboard's webhook form, a door.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInOverHttp } from '../helpers/dashboard.js';
import type { FormSession } from '../helpers/dashboard.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe("the dashboard's webhook form and includeSpam", () => {
  let server: TestServer;
  let session: FormSession;
  beforeAll(async () => {
    server = await startServer();
    session = await signInOverHttp(server);
  });
  afterAll(async () => server?.stop());

  const hooks = async () =>
    (await server.api('/webhooks')).json.data.webhooks as { id: string; url: string; includeSpam: boolean }[];

  it('makes a webhook with "Also mail filed into Spam" ticked, and saving it unticked turns it off', async () => {
    const url = 'http://127.0.0.1:9/spam-hook';
    const made = await session.post('/webhooks', { url, events: 'email.received', includeSpam: 'on' });
    expect(made.status).toBe(200);
    const hook = (await hooks()).find((h) => h.url === url)!;
    expect(hook.includeSpam).toBe(true);

    const saved = await session.post(`/webhooks/${hook.id}`, { url, events: 'email.received' });
    expect(saved.status).toBe(303);
    expect((await hooks()).find((h) => h.id === hook.id)!.includeSpam).toBe(false);
  });
});
