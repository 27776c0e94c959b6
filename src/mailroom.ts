import type { AddressInfo, Server as NetServer } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { OpenAPIHono } from '@hono/zod-openapi';
import pino from 'pino';
import type { Logger } from 'pino';
import type { ConfigOverrides, Config } from './config.js';
import { ConfigError, loadConfig, nodeIdOf, publicUrlOf, redactCredentials } from './config.js';
import type { Db } from './db/connection.js';
import { WebhookDispatcher } from './events/dispatcher.js';
import { webhookReach } from './events/url-guard.js';
import { createHttpApp } from './http/app.js';
import type { ImapSyncOptions } from './imap/options.js';
import type { AppEnv } from './http/context.js';
import { ImapSyncManager } from './imap/sync-manager.js';
import type { ConnectLookups } from './mailbox/connect/lookups.js';
import { createEventStreamRoutes } from './http/routes/events-stream.js';
import { addDomain, addLocalInbox, addUser, createKey } from './mailbox/operations/admin.js';
import { createDeliveryWorker } from './mailbox/sending/delivery.js';
import { createSignInLink } from './mailbox/operations/sign-in.js';
import type { MailboxDeps } from './mailbox/deps.js';
import { buildDeps } from './mailbox/runtime.js';
import { storageWritable } from './mailbox/operations/readiness.js';
import { createTrashSweep } from './mailbox/organising/trash-sweep.js';
import { createPrunes } from './mailbox/operations/prunes.js';
import { createHeldSendWorker } from './mailbox/approvals/held-worker.js';
import { createHeartbeat } from './mailbox/operations/nodes.js';
import { EventTail } from './mailbox/events/event-tail.js';
import { suiteHelpers } from './embed/helpers.js';
import type { SuiteHelpers } from './embed/helpers.js';
import type { BootstrapResult } from './embed/public.js';
import type { DnsResolver } from './smtp/auth-check.js';
import { closeSmtpServer, createSmtpServer } from './smtp/server.js';
import type { OutboundOptions } from './outbound/options.js';
import type { Store } from './store/index.js';
import { openDataDir } from './store/open.js';
import type { Worker } from './worker.js';

export interface MailroomOptions extends ConfigOverrides {
  /** Read MAILROOM_* from this environment (default process.env; tests pass {}). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  authResolver?: DnsResolver;
  /** Outbound delivery tuning: MX resolver, retry schedule, poll interval (tests shorten them). */
  outboundOptions?: OutboundOptions;
  /** Waits between webhook attempts (default contract 7: 5 s ... 10 h); tests shorten them. */
  webhookRetryDelaysMs?: number[];
  /** A webhook endpoint must answer 2xx within this (default 15 s). */
  webhookTimeoutMs?: number;
  /** A webhook failing this long without a success is disabled (default 5 days). */
  webhookDisableAfterFailingMs?: number;
  /** Quiet interval after which `GET /events` sends a `: ping` comment (default 15 s). */
  eventStreamHeartbeatMs?: number;
  /** How often events committed by another process or node are looked for (default 500 ms). */
  eventTailMs?: number;
  /**
   * How often an open `GET /events`, and the waits for mail (`?wait=`, MCP `wait_for_email`),
   * re-check their key and account in the database (default 3 s).
   */
  eventStreamAccessCheckMs?: number;
  /** Window of the failed-authentication throttle (default one minute); tests shorten it. */
  authFailureWindowMs?: number;
  /** How long /readyz reuses its write probe's answer (default 1 s); tests set 0. */
  readinessProbeMs?: number;
  /** IMAP sync timing (poll interval, reconnect backoff, timeouts); tests shorten them. */
  imapOptions?: Partial<ImapSyncOptions>;
  /** Provider table, DNS and HTTP used to connect mailboxes (tests point them at local servers). */
  lookups?: Partial<ConnectLookups>;
}

export type { BootstrapResult };

/** The package's Mailroom (src/embed/public.ts) and what the CLI and this project's tests use besides. */
export interface Mailroom extends SuiteHelpers {
  config: Config;
  /** Its `store` (and `db`) can be used once the data directory is open: after open() or start(). */
  deps: MailboxDeps;
  readonly db: Db;
  app: OpenAPIHono<AppEnv>;
  http: { port: number; url: string };
  smtp: { port: number };
  /** Filled when this start bootstrapped an empty database. */
  bootstrap: BootstrapResult | null;
  /**
   * Opens the data directory: MAILROOM_SECRET loaded (or secret.key made), migrations applied,
   * the secret checked (a wrong one is a ConfigError), clear secrets sealed. start() does it
   * first; call it alone to use the store without listening.
   */
  open(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  fetch(request: Request): Promise<Response>;
}

/**
 * What a stop may take after the grace for SMTP and HTTP work in flight: the workers (a
 * delivery or webhook POST not done by then is retried after the next start, its queue row
 * was never marked done), then the parse and ingest threads. Grace + these stays under 3 s more.
 */
const WORKERS_STOP_MS = 1_500;
const THREADS_STOP_MS = 800;
const LISTENERS_SLACK_MS = 500;

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'mailroom' },
    redact: {
      paths: [
        'key',
        'apiKey',
        'password',
        'pass',
        'secret',
        'authorization',
        '*.authorization',
        'text',
        'html',
        'raw',
        'body',
      ],
      censor: '[redacted]',
    },
  });
}

export function createMailroom(options: MailroomOptions = {}): Mailroom {
  const { env, logger, authResolver, ...overrides } = options;
  const config = loadConfig(overrides, env ?? process.env);
  // Every line names its node: several share one PostgreSQL (contract 11).
  const log = (logger ?? createLogger(config.logLevel)).child({ node: nodeIdOf(config) });
  // Opening is async (sealing runs in a transaction; another engine connects over the network),
  // so it happens in open(), which start() awaits first. Until then the store is not there.
  let opened: { db: Db; store: Store } | null = null;
  let opening: Promise<void> | null = null;
  const dataDir = () => {
    if (!opened)
      throw new Error('the data directory is not open yet: await mailroom.open() or start() first');
    return opened;
  };
  let imapSync!: ImapSyncManager;
  const deps = buildDeps({
    mode: 'server',
    store: () => dataDir().store,
    config,
    log,
    remote: (d) => (imapSync = new ImapSyncManager(d, options.imapOptions)),
    lookups: options.lookups,
    waitAccessCheckMs: options.eventStreamAccessCheckMs,
  });
  const { bus } = deps;

  const workers: Worker[] = [];
  workers.push(createDeliveryWorker(deps, options.outboundOptions));
  workers.push(
    new WebhookDispatcher({
      get store() {
        return deps.store;
      },
      bus,
      log,
      reach: webhookReach(config),
      retryDelaysMs: options.webhookRetryDelaysMs,
      timeoutMs: options.webhookTimeoutMs,
      disableAfterFailingMs: options.webhookDisableAfterFailingMs,
    }),
  );
  const eventStreams = createEventStreamRoutes({
    heartbeatMs: options.eventStreamHeartbeatMs,
    accessCheckMs: options.eventStreamAccessCheckMs,
  });
  const heartbeat = createHeartbeat(deps);
  workers.push(heartbeat);
  workers.push(createTrashSweep(deps));
  workers.push(createPrunes(deps));
  workers.push(createHeldSendWorker(deps));
  workers.push(new EventTail(deps, options.eventTailMs ?? 500));
  workers.push(imapSync);
  let listening = false;
  const writable = storageWritable(deps, options.readinessProbeMs);
  const app = createHttpApp({
    deps,
    ready: async () => {
      if (!listening || !opened?.db.open) return 'starting';
      return heartbeat.alive() && (await writable()) ? 'ready' : 'unavailable';
    },
    eventStreams,
    authFailureWindowMs: options.authFailureWindowMs,
  });
  const httpServer = createAdaptorServer({
    fetch: app.fetch,
    serverOptions: { maxHeaderSize: config.maxHeaderBytes },
  }) as Server;
  const smtpServer = createSmtpServer({ deps, authResolver });

  const mailroom: Mailroom = {
    config,
    deps,
    get db() {
      return dataDir().db;
    },
    app,
    http: { port: 0, url: '' },
    smtp: { port: 0 },
    bootstrap: null,
    fetch: async (request) => app.fetch(request),
    ...suiteHelpers(deps, async () => {
      if (!config.bootstrap) return;
      mailroom.bootstrap = await bootstrap(
        deps,
        mailroom.http.port,
        mailroom.bootstrap?.apiKey ?? config.bootstrapKey,
      );
    }),

    open() {
      opening ??= (async () => {
        // The secret first (openDataDir loads it): the store seals with it, and the ingest thread
        // gets it with the config.
        opened = await openDataDir(config, log);
        deps.parser.start();
        await deps.ingest.start();
      })();
      return opening;
    },

    async start() {
      await mailroom.open();
      await listen(smtpServer.server, config.smtpPort, config.host, 'SMTP', 'MAILROOM_SMTP_PORT');
      mailroom.smtp.port = (smtpServer.server.address() as AddressInfo).port;
      await listen(httpServer, config.httpPort, config.host, 'HTTP', 'MAILROOM_HTTP_PORT');
      mailroom.http.port = (httpServer.address() as AddressInfo).port;
      mailroom.http.url = `http://${urlHost(config.host)}:${mailroom.http.port}`;
      // After the listeners: a start that fails (port taken) must not use up the once-shown key.
      const { store } = dataDir();
      // Nodes started together on an empty PostgreSQL: one makes the first user, the others wait
      // for it and find it made.
      const made = config.bootstrap
        ? await store.db.transaction(async () => {
            await store.users.holdFirstStart();
            return (await store.users.count()) === 0 ? bootstrap(deps, mailroom.http.port) : null;
          })
        : null;
      if (made) mailroom.bootstrap = made;
      else if (config.bootstrapKey && !(await store.apiKeys.authenticate(config.bootstrapKey))) {
        log.warn('MAILROOM_BOOTSTRAP_KEY is not an active key: it is used only by the first start');
      }
      for (const worker of workers) worker.start();
      listening = true;
      log.info(
        { http: mailroom.http.port, smtp: mailroom.smtp.port, outbound: config.outbound },
        'mailroom started',
      );
    },

    async stop() {
      listening = false;
      const graceMs = config.shutdownGrace * 1000;
      eventStreams.closeAll();
      deps.waiters.closeAll();
      const smtpClosed = closeSmtpServer(smtpServer, graceMs);
      const httpClosed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      const forced = setTimeout(() => {
        httpServer.closeAllConnections?.();
      }, graceMs);
      httpServer.closeIdleConnections?.();
      await Promise.all([
        withTimeout(smtpClosed, graceMs + LISTENERS_SLACK_MS),
        withTimeout(httpClosed, graceMs + LISTENERS_SLACK_MS),
      ]);
      clearTimeout(forced);
      await withTimeout(Promise.all(workers.map((w) => w.stop())), WORKERS_STOP_MS);
      // Not raced against a timer: each ends its threads itself after the grace, and nothing may
      // touch the data folder once stop() has resolved.
      await Promise.all([deps.ingest.close(THREADS_STOP_MS), deps.parser.close()]);
      await opened?.db.close();
      log.info('mailroom stopped');
    },
  };
  return mailroom;
}

async function bootstrap(
  deps: MailboxDeps,
  httpPort: number,
  given = deps.config.bootstrapKey,
): Promise<BootstrapResult> {
  const domain =
    (await deps.store.domains.find(deps.config.domain)) ??
    (await addDomain(deps, deps.config.domain, undefined, {
      ...(deps.config.dkimKey ? { privateKey: deps.config.dkimKey } : {}),
      ...(deps.config.dkimSelector ? { selector: deps.config.dkimSelector } : {}),
    }));
  const user = await addUser(deps, 'default', { admin: true });
  const inbox = await addLocalInbox(deps, `agent@${domain.name}`, user.id, 'Agent');
  const { key } = await createKey(deps, user.id, { name: 'bootstrap', ...(given ? { given } : {}) });
  const signInLink = `${publicUrlOf(deps.config, httpPort)}/sign-in/link/${(await createSignInLink(deps, user.id)).token}`;
  return {
    domain: domain.name,
    user: user.name,
    inbox: inbox.address,
    apiKey: key,
    keyGiven: !!given,
    signInLink,
  };
}

/** Listens; a port that cannot be had is a ConfigError naming the port and its setting. */
function listen(
  server: Server | NetServer,
  port: number,
  host: string,
  what: string,
  setting: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(listenProblem(error, { port, host, what, setting }));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

function listenProblem(
  error: Error,
  at: { port: number; host: string; what: string; setting: string },
): Error {
  const code = (error as { code?: string }).code;
  const flag = `--${at.setting.slice('MAILROOM_'.length).toLowerCase().replace(/_/g, '-')}`;
  const host = redactCredentials(at.host);
  const where = `${at.what} port ${at.port} on ${host}`;
  if (code === 'EADDRINUSE') {
    return new ConfigError(
      `${where} is already in use (${at.setting}, ${flag}): stop what holds it, or choose another port`,
    );
  }
  if (code === 'EACCES') {
    return new ConfigError(
      `${where} needs privileges this user does not have (${at.setting}, ${flag}): choose a port above 1023`,
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ConfigError(
      `${at.what} cannot listen on ${JSON.stringify(host)}: it is not an address of this machine (MAILROOM_HOST, --host)`,
    );
  }
  return error;
}

/** The host part of a URL that reaches this listener: a wildcard address is reached on loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function withTimeout(promise: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([promise, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
}
