import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

type Delivery = { recipient: string; status: string };

describe('outbound straight to MX hosts (MAILROOM_OUTBOUND=direct)', () => {
  let capture: CaptureServer;
  let server: TestServer;
  const lookups: string[] = [];

  beforeAll(async () => {
    capture = await startCaptureServer();
    server = await startServer({
      outbound: 'direct',
      outboundOptions: {
        directPort: capture.port,
        retryBaseMs: 150,
        // Long enough for a second attempt on a loaded machine, where the first can take 600 ms.
        giveUpAfterMs: 1500,
        pollMs: 1000,
        mxResolver: async (domain) => {
          lookups.push(domain);
          if (domain === 'example.com') {
            return [
              { exchange: '127.0.0.1', priority: 20 },
              { exchange: '127.0.0.2', priority: 10 },
            ];
          }
          if (domain === 'null-mx.example') return [{ exchange: '.', priority: 0 }];
          if (domain === 'down.example') return [{ exchange: '127.0.0.2', priority: 10 }];
          throw Object.assign(new Error(`queryMx ENOTFOUND ${domain}`), { code: 'ENOTFOUND' });
        },
      },
    });
  });
  afterAll(async () => {
    await server.stop();
    await capture.close();
  });

  async function send(to: string[]) {
    const res = await server.api('/emails/send', {
      method: 'POST',
      body: { from: server.inbox, to, subject: `Direct to ${to.join(', ')}`, text: 'hello' },
    });
    expect(res.status).toBe(200);
    return res.json.data as { uid: number; messageId: string };
  }

  async function deliveryOf(uid: number): Promise<Record<string, string>> {
    const res = await server.api(`/emails/${uid}?account=${server.inbox}&folder=Sent`);
    return Object.fromEntries(
      (res.json.data.email.delivery as Delivery[]).map((d) => [d.recipient, d.status]),
    );
  }

  it('delivers through the first MX host that answers, one transaction for the recipients of a domain', async () => {
    const sent = await send(['a@example.com', 'b@example.com']);
    await eventually(async () => Object.values(await deliveryOf(sent.uid)).every((s) => s === 'delivered'));
    const copies = capture.messages.filter((m) => m.raw.toString().includes(sent.messageId));
    expect(copies).toHaveLength(1);
    expect(copies[0]!.to.sort()).toEqual(['a@example.com', 'b@example.com']);
    expect(copies[0]!.from).toBe(server.inbox);
    expect(lookups).toContain('example.com');
  });

  it('a domain that does not exist, or takes no mail (null MX), fails for good with a bounce', async () => {
    const sent = await send(['x@no-such-domain.example', 'y@null-mx.example']);
    await eventually(async () => Object.values(await deliveryOf(sent.uid)).every((s) => s === 'failed'));
    const inbox = await server.api(`/emails?account=${server.inbox}&from=MAILER-DAEMON`);
    const notices = inbox.json.data.emails.filter(
      (e: { inReplyTo: string }) => e.inReplyTo === sent.messageId,
    );
    const text = notices.map((n: { text: string }) => n.text).join('\n');
    expect(text).toContain('x@no-such-domain.example');
    expect(text).toContain('y@null-mx.example');
  });

  it('keeps retrying an unreachable domain, then gives up with a bounce (4.4.7) after giveUpAfterMs', async () => {
    const sent = await send(['z@down.example']);
    await eventually(async () => (await deliveryOf(sent.uid))['z@down.example'] === 'failed');
    const inbox = await server.api(`/emails?account=${server.inbox}&from=MAILER-DAEMON`);
    const notice = inbox.json.data.emails.find((e: { inReplyTo: string }) => e.inReplyTo === sent.messageId);
    const attempts = Number(/gave up after (\d+) attempts/.exec(notice.text)?.[1]);
    expect(attempts).toBeGreaterThanOrEqual(2);
    const raw = await server.api(`/emails/${notice.uid}/raw?account=${server.inbox}`);
    expect(raw.text).toContain('Status: 4.4.7');
  });
});
