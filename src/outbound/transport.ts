import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import { sendDirect } from './direct.js';
import type { ResolvedOutboundOptions } from './options.js';
import type { Outcome } from './outcome.js';
import { allRecipients } from './outcome.js';
import type { Envelope } from './smtp-send.js';
import { sendOverSmtp } from './smtp-send.js';

/** How mail for other domains leaves (MAILROOM_OUTBOUND). */
export interface Transport {
  readonly kind: Config['outbound'];
  /** Whether messages should be DKIM-signed before `send` (not when nothing leaves). */
  readonly signs: boolean;
  /** One attempt for recipients that all share `domain`. */
  send(domain: string, envelope: Envelope, raw: Buffer): Promise<Outcome[]>;
  /** Closes pooled connections. */
  close(): void;
}

export function createTransport(config: Config, options: ResolvedOutboundOptions): Transport {
  const timeouts = {
    connectionTimeout: options.smtpTimeoutMs,
    greetingTimeout: options.smtpTimeoutMs,
    socketTimeout: options.smtpTimeoutMs,
  };
  switch (config.outbound) {
    case 'relay': {
      const url = config.relayUrl;
      if (!url) throw new Error('MAILROOM_RELAY_URL is required when MAILROOM_OUTBOUND=relay');
      const relayHost = new URL(url).hostname;
      // Every message goes to the same relay: keep a few connections open instead of a
      // TCP (and TLS) handshake per message.
      const pool = nodemailer.createTransport({
        url,
        name: config.hostname,
        pool: true,
        maxConnections: options.relayConnections,
        maxMessages: 1000,
        ...timeouts,
      } as Parameters<typeof nodemailer.createTransport>[0]);
      return {
        kind: 'relay',
        signs: true,
        send: (_domain, envelope, raw) => sendOverSmtp(pool, envelope, raw, relayHost),
        close: () => pool.close(),
      };
    }
    case 'direct':
      return {
        kind: 'direct',
        signs: true,
        send: (domain, envelope, raw) =>
          sendDirect(domain, envelope, raw, {
            port: options.directPort,
            hostname: config.hostname,
            timeoutMs: options.smtpTimeoutMs,
            mxResolver: options.mxResolver,
          }),
        close: () => undefined,
      };
    case 'sandbox':
      return {
        kind: 'sandbox',
        signs: false,
        send: async (_domain, envelope) =>
          allRecipients(envelope.to, 'captured', 'captured by the sandbox: nothing left the machine', null),
        close: () => undefined,
      };
  }
}
