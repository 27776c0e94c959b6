import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { generateWebhookSecret, signPayload, webhookHeaders } from '../../src/events/signing.js';

describe('webhook signing', () => {
  it('generates whsec_ secrets of 32 random bytes', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('signs id.timestamp.body with the base64-decoded secret', () => {
    const key = Buffer.alloc(32, 7);
    const secret = `whsec_${key.toString('base64')}`;
    const expected = createHmac('sha256', key).update('evt_1.1700000000.{"a":1}').digest('base64');
    expect(signPayload(secret, 'evt_1', 1700000000, '{"a":1}')).toBe(`v1,${expected}`);
  });

  it('produces headers that standardwebhooks verifies', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ id: 'evt_abc', type: 'email.received', data: { text: 'héllo ✉' } });
    const headers = webhookHeaders(secret, 'evt_abc', body);
    expect(headers).toMatchObject({
      'webhook-id': 'evt_abc',
      'content-type': 'application/json',
      'user-agent': `Mailroom-Webhooks/${VERSION}`,
    });
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('fails verification for a tampered body, another secret or another id', () => {
    const secret = generateWebhookSecret();
    const body = '{"id":"evt_1"}';
    const headers = webhookHeaders(secret, 'evt_1', body);
    expect(() => new Webhook(secret).verify('{"id":"evt_2"}', headers)).toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_x' })).toThrow();
  });

  it('uses the given time as the timestamp, in seconds', () => {
    const headers = webhookHeaders(
      generateWebhookSecret(),
      'evt_1',
      '{}',
      new Date('2024-01-02T03:04:05.678Z'),
    );
    expect(headers['webhook-timestamp']).toBe(String(Date.UTC(2024, 0, 2, 3, 4, 5) / 1000));
  });
});
