import os from 'node:os';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { DKIM_KEY_RULE, dkimKeyPairOf } from './mail/dkim-key.js';

const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().min(0);
/** Seconds; fractions allowed so tests can use tiny values. */
const seconds = z.coerce.number().positive();
const optionalPath = z.string().min(1).optional();

/**
 * Web origins allowed to call /api/v1 from a browser: a comma list (or an array), `*` alone for any.
 * An origin is what a browser sends in `Origin`: scheme, host and port, never a path or a slash.
 */
const corsOrigins = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((o) => o.trim()).filter((o) => o !== ''))
  .refine(
    (list) => list.every((o) => o === '*' || /^https?:\/\/[^/\s?#]+$/.test(o)),
    'each origin is scheme://host[:port] as a browser sends it, without a path or a final slash (https://app.example.com), or *',
  )
  .refine(
    (list) => !list.includes('*') || list.length === 1,
    '* stands alone: it already allows every origin',
  );

/** `address` or `address/prefix`, IPv4 or IPv6, as `address/prefix`; undefined when it is neither. */
function asNetwork(entry: string): string | undefined {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  const bits = family === 4 ? 32 : 128;
  if (family === 0 || rest.length > 0) return undefined;
  if (prefix === undefined) return `${address}/${bits}`;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= bits ? `${address}/${Number(prefix)}` : undefined;
}

/**
 * Addresses and CIDR networks, IPv4 or IPv6: a comma list (or an array), `none` for none. Each
 * comes out as `address/prefix`.
 */
const networks = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.trim() === 'none' ? [] : v.split(',')))
  .transform((list, ctx) => {
    const out: string[] = [];
    for (const entry of list.map((n) => n.trim()).filter((n) => n !== '')) {
      const network = asNetwork(entry);
      if (network) out.push(network);
      else
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(redactCredentials(entry))} is not an address or a network (e.g. 127.0.0.0/8, 192.0.2.7, ::1, fd00::/8); none for none`,
        });
    }
    return out;
  });

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
  databaseUrl: {
    env: 'MAILROOM_DATABASE_URL',
    schema: z.string().min(1).optional(),
    default: undefined,
    secret: true,
    help: 'postgres://user:password@host:5432/db to keep the data in PostgreSQL 15+ instead of the SQLite file in the data dir (sslmode in the URL honoured)',
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
  bootstrapKey: {
    env: 'MAILROOM_BOOTSTRAP_KEY',
    schema: z
      .string()
      .regex(/^mr_live_[\w-]{32,200}$/, 'must be mr_live_ and then 32 or more letters, digits, - or _')
      .optional(),
    default: undefined,
    secret: true,
    help: 'API key the first-start bootstrap creates, instead of a random one it prints (never printed or logged)',
  },
  dkimKey: {
    env: 'MAILROOM_DKIM_KEY',
    schema: z
      .string()
      .refine((pem) => dkimKeyPairOf(pem) !== null, DKIM_KEY_RULE)
      .optional(),
    default: undefined,
    secret: true,
    help: "RSA private key (PEM) the first-start bootstrap's domain signs outgoing mail with, instead of a new 2048-bit key: keep the DKIM key already published for the domain",
  },
  dkimSelector: {
    env: 'MAILROOM_DKIM_SELECTOR',
    schema: z
      .string()
      .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i, 'must be a DNS label: letters, digits and -')
      .optional(),
    default: undefined,
    help: "DKIM selector of the first-start bootstrap's domain (default: mr and the year and month it was made)",
  },
  publicUrl: {
    env: 'MAILROOM_PUBLIC_URL',
    schema: z
      .string()
      .regex(
        /^https?:\/\/[^/\s]+\/?$/,
        'must be http:// or https:// and a host (with a port if needed), no path',
      )
      .transform((v) => v.replace(/\/$/, ''))
      .optional(),
    default: undefined,
    help: 'the address people reach the dashboard at, as in their browser: sign-in links and the OAuth2 redirect URI use it, https makes cookies Secure (default http://<host>:<http port>)',
  },
  hostname: {
    env: 'MAILROOM_HOSTNAME',
    schema: z.string().min(1),
    default: 'localhost',
    help: 'name used in the SMTP greeting and Received: headers',
  },
  nodeId: {
    env: 'MAILROOM_NODE_ID',
    schema: z
      .string()
      .regex(/^[\w.:-]{1,100}$/, 'must be 1 to 100 letters, digits, ., :, - or _')
      .optional(),
    default: undefined,
    help: "this node's name among nodes sharing one PostgreSQL: in every log line, the metrics and GET /admin/v1/nodes (default <host name>-<pid>)",
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
    default: 10,
    help: 'concurrent SMTP connections from one IP',
  },
  smtpMessagesPerMinutePerIp: {
    env: 'MAILROOM_SMTP_RATE_PER_IP',
    schema: positiveInt,
    default: 100_000,
    help: 'messages one IP may send per minute before 421/451',
  },
  smtpTrustedNetworks: {
    env: 'MAILROOM_SMTP_TRUSTED_NETWORKS',
    schema: networks,
    default: ['127.0.0.0/8', '::1'] as string[],
    help: 'SMTP clients not counted against the per-IP connection and rate limits and greeted without the 100 ms early-talker pause (comma list of addresses and CIDR networks, none for none), as Postfix exempts mynetworks',
  },
  smtpInflightBytes: {
    env: 'MAILROOM_SMTP_INFLIGHT_BYTES',
    schema: positiveInt,
    default: 32 * 1024 * 1024,
    help: 'message bytes all SMTP sessions together may hold in memory; beyond it 452 4.3.1',
  },
  smtpCommandTimeout: {
    env: 'MAILROOM_SMTP_COMMAND_TIMEOUT',
    schema: seconds,
    default: 60,
    help: 'seconds a client has to send each complete command line, then 421',
  },
  smtpDataTimeout: {
    env: 'MAILROOM_SMTP_DATA_TIMEOUT',
    schema: seconds,
    default: 600,
    help: 'seconds a whole message (DATA to the final dot) may take, then 421',
  },
  smtpMinDataRate: {
    env: 'MAILROOM_SMTP_MIN_DATA_RATE',
    schema: positiveInt,
    default: 1024,
    help: 'bytes per second a message must average after the grace, then 421',
  },
  smtpDataGrace: {
    env: 'MAILROOM_SMTP_DATA_GRACE',
    schema: seconds,
    default: 30,
    help: 'seconds of DATA before the minimum data rate applies',
  },
  smtpMaxFailedRecipients: {
    env: 'MAILROOM_SMTP_MAX_FAILED_RCPTS',
    schema: positiveInt,
    default: 20,
    help: 'refused RCPT TO per session before 421 and close',
  },
  postmaster: {
    env: 'MAILROOM_POSTMASTER',
    schema: z.email().optional(),
    default: undefined,
    help: 'inbox that receives postmaster@ of every hosted domain (unset: the oldest inbox of the oldest user)',
  },
  tlsCert: {
    env: 'MAILROOM_TLS_CERT',
    schema: optionalPath,
    default: undefined,
    help: 'PEM certificate (chain) file for inbound STARTTLS; reloaded when it changes',
  },
  tlsKey: {
    env: 'MAILROOM_TLS_KEY',
    schema: optionalPath,
    default: undefined,
    help: 'PEM private key file for inbound STARTTLS; reloaded when it changes',
  },
  verifyAuth: {
    env: 'MAILROOM_VERIFY_AUTH',
    schema: bool,
    default: true,
    help: 'check SPF, DKIM and DMARC on inbound mail (needs DNS)',
  },
  dmarcEnforce: {
    env: 'MAILROOM_DMARC_ENFORCE',
    schema: bool,
    default: false,
    help: 'refuse (550) inbound mail failing DMARC under p=reject and file it into Spam under p=quarantine (off: a p=reject failure goes to Spam)',
  },
  rspamdUrl: {
    env: 'MAILROOM_RSPAMD_URL',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
    default: undefined,
    help: "rspamd's base URL (e.g. http://127.0.0.1:11333): inbound mail is scored before the answer to DATA",
  },
  rspamdTimeoutMs: {
    env: 'MAILROOM_RSPAMD_TIMEOUT_MS',
    schema: positiveInt,
    default: 5000,
    help: 'rspamd slower than this counts as unreachable',
  },
  rspamdFail: {
    env: 'MAILROOM_RSPAMD_FAIL',
    schema: z.enum(['open', 'tempfail']),
    default: 'open',
    help: "rspamd unreachable: 'open' takes the message unscored, 'tempfail' answers 451",
  },
  clamd: {
    env: 'MAILROOM_CLAMD',
    schema: z
      .string()
      .regex(/^(tcp:\/\/[^\s/]+:\d{1,5}|\/\S+)$/, 'must be tcp://host:port or the absolute path of a socket')
      .optional(),
    default: undefined,
    help: 'clamd to scan inbound mail with (tcp://host:port or a socket path): a virus is refused with 554',
  },
  clamdFail: {
    env: 'MAILROOM_CLAMD_FAIL',
    schema: z.enum(['open', 'tempfail']),
    default: 'tempfail',
    help: "clamd unreachable or failing: 'tempfail' answers 451, 'open' takes the message unscanned",
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
    secret: true,
    help: 'smtp:// or smtps:// relay, with credentials, for outbound=relay',
  },
  webhookAllowPrivate: {
    env: 'MAILROOM_WEBHOOK_ALLOW_PRIVATE',
    schema: bool,
    default: false,
    help: 'allow webhook URLs on private networks and loopback (development, tests); loopback is allowed without it while MAILROOM_HOST is loopback only',
  },
  connectAllowPrivate: {
    env: 'MAILROOM_CONNECT_ALLOW_PRIVATE',
    schema: bool,
    default: false,
    help: 'let dashboard users connect mailboxes whose IMAP or SMTP server is on a loopback, private or link-local address (the admin API and the CLI are never limited)',
  },
  corsOrigins: {
    env: 'MAILROOM_CORS_ORIGINS',
    schema: corsOrigins,
    default: [] as string[],
    help: 'web origins whose pages may call /api/v1 from a browser (comma list, * for any, then without credentials); unset: none',
  },
  rateLimit: {
    env: 'MAILROOM_RATE_LIMIT',
    schema: positiveInt,
    default: 600,
    help: 'API requests per key per minute',
  },
  maxWaitsPerKey: {
    env: 'MAILROOM_MAX_WAITS_PER_KEY',
    schema: positiveInt,
    default: 50,
    help: 'waits for mail (GET /emails?wait=, MCP wait_for_email) one API key may hold at once on this process; 429 beyond',
  },
  sendLimitPerHour: {
    env: 'MAILROOM_SEND_LIMIT_PER_HOUR',
    schema: nonNegativeInt,
    default: 500,
    help: 'recipients an inbox may send to in any hour unless its settings say otherwise (0: no limit); a send past it is 429',
  },
  sendLimitPerDay: {
    env: 'MAILROOM_SEND_LIMIT_PER_DAY',
    schema: nonNegativeInt,
    default: 2000,
    help: 'recipients an inbox may send to in any 24 hours unless its settings say otherwise (0: no limit); a send past it is 429',
  },
  loopLimit: {
    env: 'MAILROOM_LOOP_LIMIT',
    schema: positiveInt,
    default: 20,
    help: 'messages an inbox may send to one address in any 10 minutes (the loop guard); one more is 429 loop_detected',
  },
  approvalTtlHours: {
    env: 'MAILROOM_APPROVAL_TTL_HOURS',
    schema: z.coerce.number().positive(),
    default: 168,
    help: 'hours a send waits for approval before it goes back to Drafts as expired (fractions allowed)',
  },
  authFailureLimit: {
    env: 'MAILROOM_AUTH_FAILURE_LIMIT',
    schema: positiveInt,
    default: 10,
    help: 'failed API-key (or admin-token) attempts one client address may make a minute before 429',
  },
  adminToken: {
    env: 'MAILROOM_ADMIN_TOKEN',
    schema: z.string().min(16).optional(),
    default: undefined,
    secret: true,
    help: 'bearer token of /admin/v1 (unset: admin API answers 404)',
  },
  metricsToken: {
    env: 'MAILROOM_METRICS_TOKEN',
    schema: z.string().min(16).optional(),
    default: undefined,
    secret: true,
    help: 'bearer token GET /metrics requires (unset: /metrics is open)',
  },
  secret: {
    env: 'MAILROOM_SECRET',
    schema: z.string().min(16).optional(),
    default: undefined,
    secret: true,
    help: 'key that encrypts DKIM keys, webhook secrets and IMAP credentials (generated into the data dir as secret.key when unset)',
  },
  trashDays: {
    env: 'MAILROOM_TRASH_DAYS',
    schema: positiveInt,
    default: 30,
    help: 'days before mail in Trash is deleted for good',
  },
  auditRetentionDays: {
    env: 'MAILROOM_AUDIT_RETENTION_DAYS',
    schema: positiveInt,
    default: 365,
    help: 'days the audit trail keeps a record',
  },
  imapInitialDays: {
    env: 'MAILROOM_IMAP_INITIAL_DAYS',
    schema: z.coerce.number().int().min(0),
    default: 0,
    help: 'initial IMAP sync window in days (0: all mail)',
  },
  imapCheckSeconds: {
    env: 'MAILROOM_IMAP_CHECK_SECONDS',
    schema: positiveInt,
    default: 4,
    help: 'how often a connected INBOX is checked for new mail when its IDLE brings nothing or the server has no IDLE',
  },
  imapSyncAllMail: {
    env: 'MAILROOM_IMAP_SYNC_ALL_MAIL',
    schema: bool,
    default: false,
    help: 'also sync IMAP folders that show mail kept elsewhere: All Mail, Starred, Important (special-use All, Flagged, Important)',
  },
  oauthGmailClientId: {
    env: 'MAILROOM_OAUTH_GMAIL_CLIENT_ID',
    schema: z.string().min(1).optional(),
    default: undefined,
    help: "the team's OAuth2 client id at Google, for mailboxes connected with provider gmail and a refresh token, and the dashboard's Connect button",
  },
  oauthGmailClientSecret: {
    env: 'MAILROOM_OAUTH_GMAIL_CLIENT_SECRET',
    schema: z.string().min(1).optional(),
    default: undefined,
    secret: true,
    help: "that client's secret (public clients have none)",
  },
  oauthMicrosoftClientId: {
    env: 'MAILROOM_OAUTH_MICROSOFT_CLIENT_ID',
    schema: z.string().min(1).optional(),
    default: undefined,
    help: "the team's OAuth2 client id at Microsoft, for mailboxes connected with provider microsoft and a refresh token, and the dashboard's Connect button",
  },
  oauthMicrosoftClientSecret: {
    env: 'MAILROOM_OAUTH_MICROSOFT_CLIENT_SECRET',
    schema: z.string().min(1).optional(),
    default: undefined,
    secret: true,
    help: "that client's secret (public clients have none)",
  },
  oauthYahooClientId: {
    env: 'MAILROOM_OAUTH_YAHOO_CLIENT_ID',
    schema: z.string().min(1).optional(),
    default: undefined,
    help: "the team's OAuth2 client id at Yahoo, for mailboxes connected with provider yahoo and a refresh token, and the dashboard's Connect button",
  },
  oauthYahooClientSecret: {
    env: 'MAILROOM_OAUTH_YAHOO_CLIENT_SECRET',
    schema: z.string().min(1).optional(),
    default: undefined,
    secret: true,
    help: "that client's secret (public clients have none)",
  },
  maxBodyBytes: {
    env: 'MAILROOM_MAX_BODY_BYTES',
    schema: positiveInt,
    default: 40 * 1024 * 1024,
    help: 'largest HTTP request body (chunked ones too)',
  },
  maxHeaderBytes: {
    env: 'MAILROOM_MAX_HEADER_BYTES',
    schema: positiveInt,
    default: 16 * 1024,
    help: 'largest HTTP request line and headers together (431 above it)',
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
    help: 'threads that parse big inbound mail and attachment reads, started when needed, ended after a minute idle (0: on the main thread)',
  },
  parseDeadlineMs: {
    env: 'MAILROOM_PARSE_DEADLINE_MS',
    schema: positiveInt,
    default: 30_000,
    help: 'a parse running longer is stopped; the message is kept with its headers only',
  },
  heapGrowthPercent: {
    env: 'MAILROOM_HEAP_GROWTH_PERCENT',
    schema: z.coerce.number().int().min(0).max(1000),
    default: 30,
    help: "serve: V8's old generation grows this % past the live heap before a full collection, pretenuring off, a compacting collection per thread once quiet after work (0: V8's defaults)",
  },
  dbSync: {
    env: 'MAILROOM_DB_SYNC',
    schema: z.enum(['full', 'normal']),
    default: 'full',
    help: "SQLite synchronous: 'full' survives power loss, 'normal' only a crash",
  },
  memory: {
    env: 'MAILROOM_MEMORY',
    schema: bool,
    default: false,
    help: 'keep everything in memory (SQLite :memory:, a secret made at start): nothing is written to disk and all is gone at stop; for tests',
  },
  shutdownGrace: {
    env: 'MAILROOM_SHUTDOWN_GRACE',
    schema: seconds,
    default: 5,
    help: 'seconds a stop waits for SMTP transactions and HTTP requests in flight; the whole stop takes at most 3 more',
  },
  logLevel: {
    env: 'MAILROOM_LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    help: 'log level',
  },
} as const;

type Settings = typeof settings;

/**
 * Settings marked `secret`: each may instead be read from a file named by `<VARIABLE>_FILE`
 * (Docker and Kubernetes secrets; a trailing newline is dropped), and an error never shows its
 * value (a URL among them only with its password masked).
 */
const SECRET_SETTINGS = new Set<string>(
  Object.entries(settings)
    .filter(([, setting]) => 'secret' in setting && setting.secret)
    .map(([key]) => key),
);

function fromFile(variable: string, env: NodeJS.ProcessEnv): string | undefined {
  const file = env[`${variable}_FILE`];
  if (file === undefined || file === '') return undefined;
  if (env[variable] !== undefined && env[variable] !== '') {
    throw new ConfigError(`${variable} and ${variable}_FILE are both set: keep one`);
  }
  try {
    return fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new ConfigError(`${variable}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
}
export type Config = { -readonly [K in keyof Settings]: z.output<Settings[K]['schema']> } & {
  /** Path of the SQLite file, or ':memory:'. Derived from dataDir unless given. */
  dbFile: string;
};
export type ConfigOverrides = Partial<Config>;

export class ConfigError extends Error {}

/** MAILROOM_NODE_ID, or this process's host name and pid. */
export function nodeIdOf(config: Config): string {
  return config.nodeId ?? `${os.hostname()}-${process.pid}`;
}

/**
 * MAILROOM_PUBLIC_URL, or http://<host>:<port> of the listener (`port`: the one bound, when the
 * setting was 0). A wildcard host is shown as 127.0.0.1.
 */
export function publicUrlOf(config: Config, port = config.httpPort): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Settings that are URLs with credentials: shown only parsed, with the password masked. */
const URL_SETTINGS = new Set<string>(['relayUrl', 'databaseUrl']);

/**
 * `user:password@` in a text (a URL, or what was meant as one) with the password masked: from
 * the first colon after the scheme's `//` (or the start) to the last `@`, so a password holding
 * an unencoded `@` or `:` is masked whole.
 */
export function redactCredentials(text: string): string {
  return text.replace(/(\/\/|^)([^\s/@:]*):(\S*)@/g, '$1$2:***@');
}

/** A rejected value as an error may show it: secrets never, URLs without their password. */
function shown(key: string, raw: unknown): string {
  if (SECRET_SETTINGS.has(key) && !URL_SETTINGS.has(key))
    return `a value of ${String(raw).length} characters, not shown`;
  if (typeof raw !== 'string') return JSON.stringify(raw);
  if (URL_SETTINGS.has(key) && !URL.canParse(raw)) return 'a value that is not a URL, not shown';
  return JSON.stringify(redactCredentials(raw));
}

/** Reads settings from overrides, then the environment, then defaults. Throws ConfigError naming the variable. */
export function loadConfig(overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings)) {
    const given = (overrides as Record<string, unknown>)[key];
    const fileValue =
      given === undefined && SECRET_SETTINGS.has(key) ? fromFile(setting.env, env) : undefined;
    const raw =
      given !== undefined
        ? given
        : fileValue !== undefined
          ? fileValue
          : env[setting.env] !== undefined && env[setting.env] !== ''
            ? env[setting.env]
            : setting.default;
    const parsed = (setting.schema as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      const reason = parsed.error.issues[0]?.message ?? 'invalid value';
      throw new ConfigError(`${setting.env}: ${reason} (got ${shown(key, raw)})`);
    }
    out[key] = parsed.data;
  }
  const config = out as Config;
  if (config.memory && config.databaseUrl) {
    throw new ConfigError(
      'MAILROOM_MEMORY keeps the data in memory: it cannot go with MAILROOM_DATABASE_URL',
    );
  }
  config.dbFile = overrides.dbFile ?? (config.memory ? ':memory:' : path.join(config.dataDir, 'mailroom.db'));
  if (config.outbound === 'relay' && !config.relayUrl) {
    throw new ConfigError('MAILROOM_RELAY_URL is required when MAILROOM_OUTBOUND=relay');
  }
  if (config.smtpInflightBytes < config.maxMessageBytes) {
    throw new ConfigError(
      'MAILROOM_SMTP_INFLIGHT_BYTES: must be at least MAILROOM_MAX_MESSAGE_BYTES, or the largest messages never fit',
    );
  }
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) {
    throw new ConfigError('MAILROOM_TLS_CERT and MAILROOM_TLS_KEY must be set together');
  }
  if (config.databaseUrl && !/^postgres(ql)?:\/\//.test(config.databaseUrl)) {
    throw new ConfigError(
      `MAILROOM_DATABASE_URL: must start with postgres:// or postgresql:// (got ${shown('databaseUrl', config.databaseUrl)})`,
    );
  }
  if (config.relayUrl && !/^smtps?:\/\//.test(config.relayUrl)) {
    throw new ConfigError('MAILROOM_RELAY_URL: must start with smtp:// or smtps://');
  }
  return config;
}
