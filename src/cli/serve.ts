import v8 from 'node:v8';
import type { Command } from 'commander';
import { loadConfig, settings } from '../config.js';
import type { ConfigOverrides } from '../config.js';
import { collectWhenIdle } from '../mailbox/ingest/collect-when-idle.js';
import { announce } from './banner.js';
import { cliIo } from './io.js';

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export function registerServe(program: Command): void {
  const cmd = program.command('serve').description('run the HTTP API and the SMTP listener');
  for (const [key, setting] of Object.entries(settings)) {
    cmd.option(`--${kebab(key)} <value>`, `${setting.help} (${setting.env})`);
  }
  cmd.action(async (flags: Record<string, string>) => {
    const overrides: Record<string, string> = {};
    for (const key of Object.keys(settings)) if (flags[key] !== undefined) overrides[key] = flags[key];
    const { env } = cliIo();
    // The settings are checked before the server is loaded (a second of CPU), so a bad one is
    // answered at once; the server is loaded only for serve, so the admin commands start fast.
    loadConfig(overrides as ConfigOverrides, env);
    const { createMailroom } = await import('../mailroom.js');
    const mailroom = createMailroom({ ...(overrides as ConfigOverrides), env });
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
    await announce(mailroom, { flags, env });
  });
}

/**
 * A quiet server also collects once after each spell of work (collect-when-idle.ts): V8 kept the
 * young generation it grew under load and the old generation's free pages otherwise.
 *
 * Bulk work (an IMAP sync files hundreds of messages per transaction) makes V8 pretenure the
 * parser's objects: they are then made in the old generation, which V8 lets grow to up to 4x the
 * live heap before a full collection, so it fills with garbage and the Buffers it holds. Syncing
 * 20,000 small messages took RSS up ~200 MB that way. With pretenuring off and a fixed, small
 * growth factor the same sync grows +50-90 MB for 5-8% more CPU (docs/decisions/memory.md). Both
 * flags are read as the heap works, so setting them at start is enough; they are process-wide,
 * threads included. Only `serve` sets them: a process that embeds Mailroom keeps its own.
 */
function limitHeapGrowth(percent: number): void {
  if (percent === 0) return;
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  collectWhenIdle();
}

/** Past the grace, stop() takes under 3 s (mailroom.ts); one more before the process gives up. */
const STOP_SLACK_S = 4;
