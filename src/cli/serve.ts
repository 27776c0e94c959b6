import type { Command } from 'commander';
import { settings } from '../config.js';
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
    await mailroom.start();
    announce(mailroom);
    let stopping = false;
    const shutdown = (signal: string) => {
      if (stopping) return;
      stopping = true;
      mailroom.deps.log.info({ signal }, 'shutting down');
      mailroom.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
  });
}

function announce(mailroom: Mailroom): void {
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
    lines.push(
      '',
      `First start: created domain ${boot.domain}, user ${boot.user}, inbox ${boot.inbox}.`,
      'API key (shown only now; store it):',
      `  ${boot.apiKey}`,
      '',
      'List the inbox:',
      `  curl -s -H "Authorization: Bearer ${boot.apiKey}" "${base}/api/v1/emails?account=${boot.inbox}"`,
      'Send it a test mail (any SMTP client works; this one needs only curl):',
      `  printf 'From: you@example.com\\r\\nTo: ${boot.inbox}\\r\\nSubject: Hello\\r\\n\\r\\nHi agent!\\r\\n' | curl -s smtp://${host}:${mailroom.smtp.port} --mail-from you@example.com --mail-rcpt ${boot.inbox} -T -`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
