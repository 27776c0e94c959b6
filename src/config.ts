import path from 'node:path';
import { z } from 'zod';

const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

/** Every setting: its MAILROOM_* variable, default and meaning (test/docs checks the README lists each one). */
export const settings = {
  host: {
    env: 'MAILROOM_HOST',
    schema: z.string().min(1),
    default: '127.0.0.1',
    help: 'address the HTTP and SMTP listeners bind',
  },
  httpPort: {
    env: 'MAILROOM_HTTP_PORT',
    schema: port,
    default: 3000,
    help: 'HTTP API port (0 picks a free one)',
  },
  smtpPort: {
    env: 'MAILROOM_SMTP_PORT',
    schema: port,
    default: 2525,
    help: 'inbound SMTP port (0 picks a free one)',
  },
  dataDir: {
    env: 'MAILROOM_DATA_DIR',
    schema: z.string().min(1),
    default: './data',
    help: 'where mailroom.db and the generated secret live',
  },
  domain: {
    env: 'MAILROOM_DOMAIN',
    schema: z.string().min(1),
    default: 'mailroom.test',
    help: 'domain created by the first-start bootstrap',
  },
  bootstrap: {
    env: 'MAILROOM_BOOTSTRAP',
    schema: bool,
    default: true,
    help: 'create a domain, user, inbox and key on an empty database',
  },
  hostname: {
    env: 'MAILROOM_HOSTNAME',
    schema: z.string().min(1),
    default: 'localhost',
    help: 'name used in the SMTP greeting and Received: headers',
  },
  maxMessageBytes: {
    env: 'MAILROOM_MAX_MESSAGE_BYTES',
    schema: positiveInt,
    default: 25 * 1024 * 1024,
    help: 'largest message accepted over SMTP or the API (SIZE)',
  },
  maxRecipients: {
    env: 'MAILROOM_MAX_RECIPIENTS',
    schema: positiveInt,
    default: 100,
    help: 'recipients per inbound message',
  },
  smtpMaxConnections: {
    env: 'MAILROOM_SMTP_MAX_CONNECTIONS',
    schema: positiveInt,
    default: 200,
    help: 'concurrent SMTP connections in all',
  },
  smtpMaxConnectionsPerIp: {
    env: 'MAILROOM_SMTP_MAX_CONNECTIONS_PER_IP',
    schema: positiveInt,
    default: 50,
    help: 'concurrent SMTP connections from one IP',
  },
  smtpMessagesPerMinutePerIp: {
    env: 'MAILROOM_SMTP_RATE_PER_IP',
    schema: positiveInt,
    default: 100_000,
    help: 'messages one IP may send per minute before 421/451',
  },
  verifyAuth: {
    env: 'MAILROOM_VERIFY_AUTH',
    schema: bool,
    default: true,
    help: 'check SPF, DKIM and DMARC on inbound mail (needs DNS)',
  },
  outbound: {
    env: 'MAILROOM_OUTBOUND',
    schema: z.enum(['sandbox', 'relay', 'direct']),
    default: 'sandbox',
    help: 'how external mail leaves: sandbox keeps it, relay or direct MX',
  },
  relayUrl: {
    env: 'MAILROOM_RELAY_URL',
    schema: z.string().url().optional(),
    default: undefined,
    help: 'smtp:// or smtps:// relay, with credentials, for outbound=relay',
  },
  webhookAllowPrivate: {
    env: 'MAILROOM_WEBHOOK_ALLOW_PRIVATE',
    schema: bool,
    default: false,
    help: 'allow webhook URLs on loopback and private networks (development, tests)',
  },
  rateLimit: {
    env: 'MAILROOM_RATE_LIMIT',
    schema: positiveInt,
    default: 600,
    help: 'API requests per key per minute',
  },
  adminToken: {
    env: 'MAILROOM_ADMIN_TOKEN',
    schema: z.string().min(16).optional(),
    default: undefined,
    help: 'bearer token of /admin/v1 (unset: admin API answers 404)',
  },
  metricsToken: {
    env: 'MAILROOM_METRICS_TOKEN',
    schema: z.string().min(16).optional(),
    default: undefined,
    help: 'bearer token GET /metrics requires (unset: /metrics is open)',
  },
  secret: {
    env: 'MAILROOM_SECRET',
    schema: z.string().min(16).optional(),
    default: undefined,
    help: 'key that encrypts stored credentials (generated into the data dir when unset)',
  },
  trashDays: {
    env: 'MAILROOM_TRASH_DAYS',
    schema: positiveInt,
    default: 30,
    help: 'days before mail in Trash is deleted for good',
  },
  imapInitialDays: {
    env: 'MAILROOM_IMAP_INITIAL_DAYS',
    schema: z.coerce.number().int().min(0),
    default: 0,
    help: 'initial IMAP sync window in days (0: all mail)',
  },
  maxBodyBytes: {
    env: 'MAILROOM_MAX_BODY_BYTES',
    schema: positiveInt,
    default: 40 * 1024 * 1024,
    help: 'largest HTTP request body',
  },
  ingestThread: {
    env: 'MAILROOM_INGEST_THREAD',
    schema: bool,
    default: true,
    help: 'store inbound mail on a worker thread (off: inline)',
  },
  parseThreads: {
    env: 'MAILROOM_PARSE_THREADS',
    schema: z.coerce.number().int().min(0).max(64),
    default: 2,
    help: 'threads that parse inbound mail and attachment reads (0: on the main thread)',
  },
  parseDeadlineMs: {
    env: 'MAILROOM_PARSE_DEADLINE_MS',
    schema: positiveInt,
    default: 30_000,
    help: 'a parse running longer is stopped; the message is kept with its headers only',
  },
  dbSync: {
    env: 'MAILROOM_DB_SYNC',
    schema: z.enum(['full', 'normal']),
    default: 'full',
    help: "SQLite synchronous: 'full' survives power loss, 'normal' only a crash",
  },
  logLevel: {
    env: 'MAILROOM_LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    help: 'log level',
  },
} as const;

type Settings = typeof settings;
export type Config = { -readonly [K in keyof Settings]: z.output<Settings[K]['schema']> } & {
  /** Path of the SQLite file, or ':memory:'. Derived from dataDir unless given. */
  dbFile: string;
};
export type ConfigOverrides = Partial<Config>;

export class ConfigError extends Error {}

/** Reads settings from overrides, then the environment, then defaults. Throws ConfigError naming the variable. */
export function loadConfig(overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings)) {
    const given = (overrides as Record<string, unknown>)[key];
    const raw =
      given !== undefined
        ? given
        : env[setting.env] !== undefined && env[setting.env] !== ''
          ? env[setting.env]
          : setting.default;
    const parsed = (setting.schema as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      const reason = parsed.error.issues[0]?.message ?? 'invalid value';
      throw new ConfigError(`${setting.env}: ${reason} (got ${JSON.stringify(raw)})`);
    }
    out[key] = parsed.data;
  }
  const config = out as Config;
  config.dbFile = overrides.dbFile ?? path.join(config.dataDir, 'mailroom.db');
  if (config.outbound === 'relay' && !config.relayUrl) {
    throw new ConfigError('MAILROOM_RELAY_URL is required when MAILROOM_OUTBOUND=relay');
  }
  if (config.relayUrl && !/^smtps?:\/\//.test(config.relayUrl)) {
    throw new ConfigError('MAILROOM_RELAY_URL: must start with smtp:// or smtps://');
  }
  return config;
}
