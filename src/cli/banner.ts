import path from 'node:path';
import { publicUrlOf, settings } from '../config.js';
import type { Config } from '../config.js';
import { withoutPassword } from '../db/postgres/url.js';
import type { Mailroom } from '../mailroom.js';

/** How `serve` was given its settings: its own flags (by setting key) and its environment. */
export interface Given {
  flags: Record<string, string | undefined>;
  env: NodeJS.ProcessEnv;
}

/**
 * Words for the person at the terminal, on stderr: stdout carries only the JSON log lines, so
 * a log collector can parse every one of them. The API key appears here once, never in a log line.
 */
export async function announce(mailroom: Mailroom, given: Given): Promise<void> {
  const { config } = mailroom;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host}:${mailroom.http.port}`;
  const lines = [`Mailroom is running: HTTP ${base}  SMTP ${host}:${mailroom.smtp.port}  docs ${base}/docs`];
  if (config.outbound === 'sandbox') {
    lines.push(
      'Outbound mail is in SANDBOX mode: nothing leaves this machine (MAILROOM_OUTBOUND=relay|direct to send).',
    );
  }
  const reach = cliReach(config, given);
  const boot = mailroom.bootstrap;
  if (boot) {
    const key = boot.keyGiven ? '$MAILROOM_BOOTSTRAP_KEY' : boot.apiKey;
    const later = reach ? `; later: ${reach.command(`user passwd ${boot.user}`)}` : '';
    lines.push(
      '',
      `First start: created domain ${boot.domain}, user ${boot.user}, inbox ${boot.inbox}.`,
      `Open the dashboard with this one-time sign-in link (valid 15 minutes${later}):`,
      `  ${boot.signInLink}`,
      ...(reach?.notes ?? []),
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
    lines.push('', ...(await keyHint(mailroom, reach)));
  }
  process.stderr.write(`${lines.join('\n')}\n`);
}

/** A later start shows no key (only its hash is stored): say how to make one. */
async function keyHint(mailroom: Mailroom, reach: CliReach | null): Promise<string[]> {
  const { listUsers } = await import('../mailbox/operations/admin.js');
  const users = await listUsers(mailroom.deps);
  if (!reach) {
    return [
      'The data is in memory (MAILROOM_MEMORY): the mailroom command cannot reach it. Make users,',
      'inboxes and keys with the admin API (MAILROOM_ADMIN_TOKEN) or in the dashboard.',
    ];
  }
  if (users.length === 0) {
    return [
      'No users yet. Make one, an inbox and an API key:',
      `  ${reach.command('user add NAME')}`,
      `  ${reach.command(`inbox add NAME@${mailroom.config.domain} --user NAME`)}`,
      `  ${reach.command('key create --user NAME')}`,
      ...reach.notes,
    ];
  }
  const user = users.find((u) => u.name === 'default') ?? users[0]!;
  return [
    `Dashboard: ${publicUrlOf(mailroom.config, mailroom.http.port)}/  (a password: ${reach.command(`user passwd ${shellWord(user.name)}`)})`,
    `API keys are shown only when they are made. A new one (list or revoke: ${reach.command('key list')}):`,
    `  ${reach.command(`key create --user ${shellWord(user.name)}`)}`,
    ...reach.notes,
  ];
}

interface CliReach {
  /** `npx mailroom <args>` with what makes it open the server's data. */
  command(args: string): string;
  /** Lines to print after the commands: what they need that cannot be printed. */
  notes: string[];
}

/**
 * What a `mailroom` command pasted into a shell needs to open the same data as this server: the
 * data directory, when not the default, and on PostgreSQL the database URL, named the way serve
 * was given it so that no password is ever printed. A URL from the environment is referred to
 * as "$MAILROOM_DATABASE_URL" (empty in a shell without it, which the command refuses naming
 * it), one from a file by MAILROOM_DATABASE_URL_FILE, one given as a flag shown without its
 * password. Null in memory, where no other process can reach the data.
 */
function cliReach(config: Config, given: Given): CliReach | null {
  if (config.memory) return null;
  const prefix: string[] = [];
  const flags: string[] = [];
  const notes: string[] = [];
  if (config.dataDir !== settings.dataDir.default)
    flags.push(`--data-dir ${shellWord(path.resolve(config.dataDir))}`);
  const url = config.databaseUrl;
  if (url !== undefined) {
    if (given.flags.databaseUrl !== undefined) {
      const shown = withoutPassword(url);
      flags.push(`--database-url ${shellWord(shown)}`);
      if (shown !== url)
        notes.push('The database URL is shown without its password: add it, or set PGPASSWORD.');
    } else if (given.env.MAILROOM_DATABASE_URL_FILE) {
      prefix.push(
        `MAILROOM_DATABASE_URL_FILE=${shellWord(path.resolve(given.env.MAILROOM_DATABASE_URL_FILE))}`,
      );
    } else {
      flags.push('--database-url "$MAILROOM_DATABASE_URL"');
    }
  }
  if (given.flags.secret !== undefined || (!given.env.MAILROOM_SECRET_FILE && given.env.MAILROOM_SECRET)) {
    notes.push('Run mailroom commands with MAILROOM_SECRET set as it is for this server.');
  } else if (given.env.MAILROOM_SECRET_FILE) {
    prefix.push(`MAILROOM_SECRET_FILE=${shellWord(path.resolve(given.env.MAILROOM_SECRET_FILE))}`);
  }
  const before = prefix.map((p) => `${p} `).join('');
  const after = flags.map((f) => ` ${f}`).join('');
  return { command: (args) => `${before}npx mailroom ${args}${after}`, notes: notes.map((n) => `  (${n})`) };
}

/** `text` as one word of a POSIX shell: as it is when that is safe, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
