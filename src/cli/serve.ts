import v8 from 'node:v8';
import type { Command } from 'commander';
import { publicUrlOf, settings } from '../config.js';
import type { ConfigOverrides } from '../config.js';
import type { Mailroom } from '../mailroom.js';

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export function registerServe(program: Command): void {
  const cmd = program.command('serve').description('run the HTTP API and the SMTP listener');
  for (const [key, setting] of Object.entries(settings)) {
    cmd.option(`--${kebab(key)} <value>`, `${setting.help} (${setting.env})`);
  }
  cmd.action(async (flags: Record<string, string>) => {
    const overrides: Record<string, string> = {};
    for (const key of Object.keys(settings)) if (flags[key] !== undefined) overrides[key] = flags[key];
    // Loaded only for serve, so the admin commands start fast.
    const { createMailroom } = await import('../mailroom.js');
    const mailroom = createMailroom(overrides as ConfigOverrides);
    limitHeapGrowth(mailroom.config.heapGrowthPercent);
    await mailroom.start();
    let stopping = false;
    const shutdown = (signal: string) => {
      if (stopping) return;
      stopping = true;
      const log = mailroom.deps.log;
      log.info({ signal }, 'shutting down');
      // Every step of stop() is bounded; this is the last resort should one not be.
      setTimeout(
        () => {
          log.error('shutdown did not finish in time; exiting');
          process.exit(1);
        },
        (mailroom.config.shutdownGrace + STOP_SLACK_S) * 1000,
      ).unref();
      mailroom.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
    await announce(mailroom);
  });
}

/**
 * Bulk work (an IMAP sync files hundreds of messages per transaction) makes V8 pretenure the
 * parser's objects: they are then made in the old generation, which V8 lets grow to up to 4x the
 * live heap before a full collection, so it fills with garbage and the Buffers it holds. Syncing
 * 20,000 small messages took RSS up ~200 MB that way. With pretenuring off and a fixed, small
 * growth factor the same sync grows +50-90 MB for 5-8% more CPU (issue 17; docs/decisions.md). Both
 * flags are read as the heap works, so setting them at start is enough; they are process-wide,
 * threads included. Only `serve` sets them: a process that embeds Mailroom keeps its own.
 */
function limitHeapGrowth(percent: number): void {
  if (percent === 0) return;
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/** Past the grace, stop() takes under 3 s (mailroom.ts); one more before the process gives up. */
const STOP_SLACK_S = 4;

/**
 * Words for the person at the terminal, on stderr: stdout carries only the JSON log lines, so
 * a log collector can parse every one of them. The API key appears here once, never in a log line.
 */
async function announce(mailroom: Mailroom): Promise<void> {
  const { config } = mailroom;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host}:${mailroom.http.port}`;
  const lines = [`Mailroom is running: HTTP ${base}  SMTP ${host}:${mailroom.smtp.port}  docs ${base}/docs`];
  if (config.outbound === 'sandbox') {
    lines.push(
      'Outbound mail is in SANDBOX mode: nothing leaves this machine (MAILROOM_OUTBOUND=relay|direct to send).',
    );
  }
  const boot = mailroom.bootstrap;
  if (boot) {
    const key = boot.keyGiven ? '$MAILROOM_BOOTSTRAP_KEY' : boot.apiKey;
    lines.push(
      '',
      `First start: created domain ${boot.domain}, user ${boot.user}, inbox ${boot.inbox}.`,
      'Open the dashboard with this one-time sign-in link (valid 15 minutes; later: mailroom user passwd):',
      `  ${boot.signInLink}`,
      ...(boot.keyGiven
        ? ['API key: the one given in MAILROOM_BOOTSTRAP_KEY.']
        : ['API key (shown only now; store it):', `  ${boot.apiKey}`]),
      '',
      'List the inbox:',
      `  curl -s -H "Authorization: Bearer ${key}" "${base}/api/v1/emails?account=${boot.inbox}"`,
      'Send it a test mail (any SMTP client works; this one needs only curl):',
      `  printf 'From: you@example.com\\r\\nTo: ${boot.inbox}\\r\\nSubject: Hello\\r\\n\\r\\nHi agent!\\r\\n' | curl -s smtp://${host}:${mailroom.smtp.port} --mail-from you@example.com --mail-rcpt ${boot.inbox} -T -`,
    );
  } else {
    lines.push('', ...(await keyHint(mailroom)));
  }
  process.stderr.write(`${lines.join('\n')}\n`);
}

/** A later start shows no key (only its hash is stored): say how to make one. */
async function keyHint(mailroom: Mailroom): Promise<string[]> {
  const users = await mailroom.deps.store.users.list();
  const dir = mailroom.config.dataDir;
  const dataDir = dir === settings.dataDir.default ? '' : ` --data-dir ${/\s/.test(dir) ? `'${dir}'` : dir}`;
  if (users.length === 0) {
    return [
      'No users yet. Make one, an inbox and an API key:',
      `  npx mailroom user add NAME${dataDir}`,
      `  npx mailroom inbox add NAME@${mailroom.config.domain} --user NAME${dataDir}`,
      `  npx mailroom key create --user NAME${dataDir}`,
    ];
  }
  const user = users.find((u) => u.name === 'default') ?? users[0]!;
  return [
    `Dashboard: ${publicUrlOf(mailroom.config, mailroom.http.port)}/  (a password: npx mailroom user passwd ${user.name}${dataDir})`,
    'API keys are shown only when they are made. A new one (list or revoke: npx mailroom key list):',
    `  npx mailroom key create --user ${user.name}${dataDir}`,
  ];
}
