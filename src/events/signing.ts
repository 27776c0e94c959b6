import { createHmac, randomBytes } from 'node:crypto';
import { VERSION } from '../version.js';

const SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/** Standard Webhooks `v1` signature; `timestamp` is in seconds. */
export function signPayload(secret: string, msgId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${msgId}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

export function webhookHeaders(
  secret: string,
  msgId: string,
  body: string,
  now: Date = new Date(),
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signPayload(secret, msgId, timestamp, body),
    'content-type': 'application/json',
    'user-agent': `Mailroom-Webhooks/${VERSION}`,
  };
}
