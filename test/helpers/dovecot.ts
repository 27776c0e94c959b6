import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { freePort, systemUser } from './host.js';

/** Where Debian's dovecot-imapd puts the binary; scripts/ensure-test-deps.sh installs it. */
export const DOVECOT_BIN = process.env.DOVECOT_BIN ?? '/usr/sbin/dovecot';

export interface Dovecot {
  port: number;
  dir: string;
  /** `imap://user:password@127.0.0.1:port` for a user added with addUser. */
  url(user: string, password?: string): string;
  /** `imaps://...` on the TLS port, when started with `tls`. */
  tlsUrl(user: string, password?: string): string;
  addUser(user: string, password: string): void;
  /** The passwd file that holds a user (a test may rewrite it to change the password). */
  passwdFileOf(user: string): string;
  /** A plain IMAP client logged in as the user: "another mail program" on the same mailbox. */
  client(user: string, password?: string): Promise<ImapFlow>;
  /** Kills the server and starts it again on the same port and mail. */
  restart(): Promise<void>;
  /** Stops the server without starting it again (start() brings it back). */
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Makes Dovecot forget a folder's UIDs while stopped (its uidlist and indexes deleted), so it
   * numbers the mail again under a new UIDVALIDITY; `reverse` numbers it in the opposite order.
   * Flags survive (they live in the file names). Restarts the server.
   */
  renumber(user: string, folder: string, options?: { reverse?: boolean }): Promise<void>;
}

export interface DovecotOptions {
  /** The mailbox definitions inside the inbox namespace; default: Sent, Drafts, Trash, Junk with special-use. */
  mailboxes?: string;
  /** More dovecot.conf lines, e.g. an `imap_capability` without IDLE. */
  extraConfig?: string;
  /** Also listen for IMAP over TLS with this certificate and key (PEM files). */
  tls?: { cert: string; key: string };
  /**
   * Also take XOAUTH2 and OAUTHBEARER logins, each token checked by POSTing it to this RFC 7662
   * introspection URL (Dovecot's oauth2 passdb; the answer's `username` is the user).
   * Passwords keep working.
   */
  oauth2IntrospectionUrl?: string;
}

/** Dovecot mailbox definitions with their special-use role, created on login. */
export function mailboxDefinitions(names: string[]): string {
  return names
    .map((name) => `  mailbox ${name} {\n    special_use = \\${name}\n    auto = subscribe\n  }\n`)
    .join('');
}

const STANDARD_MAILBOXES = mailboxDefinitions(['Sent', 'Drafts', 'Trash', 'Junk']);

/**
 * A real Dovecot for the tests, run as a child process: its own config, passwords and Maildir in
 * a temp folder, listening on a free port on 127.0.0.1, plaintext login (ssl = no).
 * Run as root, mail is kept as the `dovecot` user (Dovecot refuses uid 0 for mail).
 */
export async function startDovecot(options: DovecotOptions = {}): Promise<Dovecot> {
  if (!fs.existsSync(DOVECOT_BIN)) {
    throw new Error(
      `${DOVECOT_BIN} not found: install Debian package dovecot-imapd (scripts/ensure-test-deps.sh)`,
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-dovecot-'));
  fs.chmodSync(dir, 0o755);
  const mailDir = path.join(dir, 'mail');
  const runDir = path.join(dir, 'run');
  fs.mkdirSync(mailDir);
  fs.mkdirSync(runDir);
  const root = process.getuid?.() === 0;
  const account = root
    ? systemUser('dovecot', 'dovecot-imapd')
    : { uid: process.getuid!(), gid: process.getgid!() };
  if (root) fs.chownSync(mailDir, account.uid, account.gid);
  const me = os.userInfo().username;
  const port = await freePort();
  const tlsPort = options.tls ? await freePort() : 0;
  // A file per user: Dovecot looks at a passwd file again at most once a second, so a user added
  // to one shared file within a second of another login was unknown (a CI run failed so). A new
  // user's file is a new path, read on its first login.
  const logFile = path.join(dir, 'dovecot.log');
  const passwdDir = path.join(dir, 'passwd.d');
  fs.mkdirSync(passwdDir);
  const passwdFileOf = (user: string) => path.join(passwdDir, user);
  const passwords = new Map<string, string>();
  const conf = path.join(dir, 'dovecot.conf');
  fs.writeFileSync(
    conf,
    `protocols = imap
listen = 127.0.0.1
base_dir = ${runDir}
state_dir = ${runDir}
instance_name = mailroom-test-${port}
log_path = ${logFile}
${options.tls ? `ssl = yes\nssl_cert = <${options.tls.cert}\nssl_key = <${options.tls.key}` : 'ssl = no'}
auth_mechanisms = plain${options.oauth2IntrospectionUrl ? ' xoauth2 oauthbearer' : ''}
disable_plaintext_auth = no
auth_failure_delay = 0
default_internal_user = ${root ? 'dovecot' : me}
default_login_user = ${root ? 'dovenull' : me}
first_valid_uid = 1
mail_location = maildir:${mailDir}/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${passwdDir}/%u
}
${options.oauth2IntrospectionUrl ? oauth2Passdb(dir, options.oauth2IntrospectionUrl) : ''}userdb {
  driver = passwd-file
  args = username_format=%u ${passwdDir}/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${tlsPort}
  }
}
service anvil {
  chroot =
${
  // No growing delay after a refused token (Dovecot's auth penalty, up to 15 s), which would
  // outlast the short-lived tokens the OAuth2 tests issue.
  options.oauth2IntrospectionUrl ? '  unix_listener anvil-auth-penalty {\n    mode = 0\n  }\n' : ''
}}
protocol imap {
  mail_max_userip_connections = 200
}
namespace inbox {
  inbox = yes
  separator = /
${options.mailboxes ?? STANDARD_MAILBOXES}}
${options.extraConfig ?? ''}`,
  );

  let child: ChildProcess | null = null;
  const dovecot: Dovecot = {
    port,
    dir,
    url: (user, password = passwords.get(user) ?? '') =>
      `imap://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    tlsUrl: (user, password = passwords.get(user) ?? '') =>
      `imaps://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${tlsPort}`,
    addUser(user, password) {
      passwords.set(user, password);
      fs.writeFileSync(
        passwdFileOf(user),
        `${user}:{PLAIN}${password}:${account.uid}:${account.gid}::${mailDir}/${user}\n`,
      );
    },
    passwdFileOf,
    client: (user, password = passwords.get(user) ?? '') => loopbackClient(port, user, password),
    async start() {
      // A master that exits at once (seen in a CI run after a restart under load) is started
      // again until the deadline; its log says why in the error if it never listens.
      const deadline = Date.now() + 20_000;
      for (;;) {
        const started = spawn(DOVECOT_BIN, ['-F', '-c', conf], { stdio: 'ignore', detached: true });
        child = started;
        while (started.exitCode === null && started.signalCode === null) {
          if (await canConnect(port)) return;
          if (Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        if (Date.now() > deadline) {
          const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-1500) : '(no log)';
          throw new Error(`dovecot did not listen on ${port}; its log ends:\n${log}`);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async kill() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      // The whole process group: a plain SIGTERM to the master leaves logged-in imap processes
      // serving their connections, which is not what a server going away looks like.
      process.kill(-running.pid!, 'SIGKILL');
      await exited;
      // The master's children (imap, auth) leave with it; wait until the port is free again.
      await waitForPortFree(port, 10_000);
    },
    async restart() {
      await dovecot.kill();
      await dovecot.start();
    },
    async renumber(user, folder, { reverse = false } = {}) {
      await dovecot.kill();
      const box = path.join(mailDir, user, `.${folder.replaceAll('/', '.')}`);
      const uidlist = fs.readFileSync(path.join(box, 'dovecot-uidlist'), 'utf8').split('\n').slice(1);
      const names = uidlist.filter(Boolean).map((line) => line.slice(line.indexOf(':') + 1));
      for (const f of fs.readdirSync(box)) if (f.startsWith('dovecot')) fs.rmSync(path.join(box, f));
      const where = (base: string) =>
        ['cur', 'new']
          .flatMap((sub) => fs.readdirSync(path.join(box, sub)).map((f) => path.join(box, sub, f)))
          .find((f) => path.basename(f).split(':')[0] === base);
      // The uidlist may still name expunged mail.
      const files = names.map(where).filter((f): f is string => f !== undefined);
      const ordered = reverse ? files.reverse() : files;
      // Dovecot numbers files it has no record of in file-name order.
      ordered.forEach((file, i) => {
        const [base, flags = '2,'] = path.basename(file).split(':');
        fs.renameSync(file, path.join(box, 'cur', `${String(i).padStart(4, '0')}.${base}:${flags}`));
      });
      await dovecot.start();
    },
    async stop() {
      await dovecot.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await dovecot.start();
  return dovecot;
}

/** An oauth2 passdb asking `introspectionUrl` about every token (no cache: a revoked token fails at once). */
function oauth2Passdb(dir: string, introspectionUrl: string): string {
  const file = path.join(dir, 'dovecot-oauth2.conf.ext');
  fs.writeFileSync(
    file,
    [
      `introspection_url = ${introspectionUrl}`,
      'introspection_mode = post',
      'force_introspection = yes',
      'username_attribute = username',
      'active_attribute = active',
      'active_value = true',
      '',
    ].join('\n'),
  );
  return `passdb {\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n  args = ${file}\n}\n`;
}

/** A plain IMAP client logged in on a loopback test server, without TLS. */
export async function loopbackClient(port: number, user: string, password: string): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port,
    secure: false,
    doSTARTTLS: false,
    auth: { user, pass: password },
    logger: false,
  });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`IMAP login as ${user} failed: ${imapErrorText(err)}`, { cause: err });
  }
  return client;
}

/** What the server answered to a failed ImapFlow command ("Command failed" alone says nothing). */
export function imapErrorText(err: unknown): string {
  const { message, responseText, executedCommand } = err as Error & {
    responseText?: string;
    executedCommand?: string;
  };
  return [message, executedCommand && `to ${executedCommand.trim()}`, responseText && `: ${responseText}`]
    .filter(Boolean)
    .join(' ');
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitForPortFree(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (await canConnect(port)) {
    if (Date.now() > deadline) throw new Error(`dovecot still listening on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A simple RFC 5322 message for APPEND. */
export function rawMessage(fields: {
  from?: string;
  to?: string;
  subject: string;
  text?: string;
  messageId?: string;
  date?: Date;
}): string {
  return [
    `From: ${fields.from ?? 'Sender <sender@example.com>'}`,
    `To: ${fields.to ?? 'owner@example.org'}`,
    `Subject: ${fields.subject}`,
    `Date: ${(fields.date ?? new Date()).toUTCString()}`,
    `Message-ID: ${fields.messageId ?? `<${Math.random().toString(36).slice(2)}@example.com>`}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    fields.text ?? `Body of ${fields.subject}`,
    '',
  ].join('\r\n');
}
