import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ImapFlow } from 'imapflow';
import { loopbackClient } from './dovecot.js';
import { systemUser } from './host.js';

/**
 * Where scripts/ensure-test-deps.sh unpacks Debian's courier-imap (with `apt-get download` and
 * `dpkg -x`: the package conflicts with dovecot-imapd, and pulls in an MTA, so it is not installed).
 */
export const COURIER_ROOT = process.env.COURIER_ROOT ?? '/opt/mailroom-test-deps/courier';
const IMAPD = path.join(COURIER_ROOT, 'usr/bin/imapd');

export interface Courier {
  port: number;
  dir: string;
  /** `imap://user:password@127.0.0.1:port`. */
  url(user: string, password?: string): string;
  addUser(user: string, password: string): void;
  /** A plain IMAP client logged in as the user: "another mail program" on the same mailbox. */
  client(user: string, password?: string): Promise<ImapFlow>;
  /** The logged-in connections whose imapd has not yet ended (process gone, output written). */
  sessions(): number;
  stop(): Promise<void>;
}

/** Debian's /etc/courier/imapd settings (IMAP_CAPABILITY, IMAP_IDLE_TIMEOUT...), `$VAR`s expanded. */
function debianSettings(): Record<string, string> {
  const settings: Record<string, string> = {};
  const text = fs.readFileSync(path.join(COURIER_ROOT, 'etc/courier/imapd'), 'utf8');
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)=("?)(.*)\2\s*$/.exec(line);
    if (!m) continue;
    settings[m[1]!] = m[3]!.replace(/\$([A-Z_]+)/g, (_, name: string) => settings[name] ?? '');
  }
  return settings;
}

/** The words of an IMAP command line: atoms and quoted strings (literals are read beforehand). */
function words(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!,
  );
}

/**
 * Debian's Courier-IMAP for the tests: its real `imapd` serves every session, run as `nobody`
 * from the unpacked package on a Maildir in a temp folder. Courier hands the login to `imaplogin`
 * and courier-authlib's daemon (a root service with a fixed socket path); this helper plays that
 * part instead, as `imaplogin` does: it greets, checks LOGIN against its own user list, then
 * starts `imapd` on the connection with AUTHENTICATED and IMAPLOGINTAG set, and imapd answers the
 * LOGIN itself. Without gamin's server (not installed, as on a default Debian box) its IDLE
 * never pushes: the shape issue 17 found.
 */
export async function startCourier(): Promise<Courier> {
  if (!fs.existsSync(IMAPD))
    throw new Error(`${IMAPD} not found: run scripts/ensure-test-deps.sh (it unpacks courier-imap)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-courier-'));
  fs.chmodSync(dir, 0o755);
  const mailDir = path.join(dir, 'mail');
  fs.mkdirSync(mailDir);
  const root = process.getuid?.() === 0;
  const account = root
    ? systemUser('nobody', 'base-passwd')
    : { uid: process.getuid!(), gid: process.getgid!() };
  if (root) fs.chownSync(mailDir, account.uid, account.gid);
  const passwords = new Map<string, string>();
  const settings = debianSettings();
  const libs = ['usr/lib', 'usr/lib/courier-authlib', 'usr/lib/x86_64-linux-gnu']
    .map((p) => path.join(COURIER_ROOT, p))
    .join(':');
  const sessions = new Set<ChildProcess>();

  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.write(`* OK [CAPABILITY IMAP4rev1] Courier-IMAP ready (login by the mailroom test helper)\r\n`);
    let buffer = Buffer.alloc(0);
    let line = '';
    let literal = 0;
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (literal > 0) {
          if (buffer.length < literal) return;
          line += JSON.stringify(buffer.subarray(0, literal).toString('utf8'));
          buffer = buffer.subarray(literal);
          literal = 0;
        }
        const end = buffer.indexOf('\r\n');
        if (end < 0) return;
        line += buffer.subarray(0, end).toString('utf8');
        buffer = buffer.subarray(end + 2);
        const size = /\{(\d+)\+?\}$/.exec(line);
        if (size) {
          line = line.slice(0, size.index);
          literal = Number(size[1]);
          if (!size[0].includes('+')) socket.write('+ go on\r\n');
          continue;
        }
        const [tag = '*', command = '', ...args] = words(line);
        line = '';
        const verb = command.toUpperCase();
        if (verb === 'CAPABILITY')
          socket.write(`* CAPABILITY IMAP4rev1\r\n${tag} OK CAPABILITY completed\r\n`);
        else if (verb === 'NOOP') socket.write(`${tag} OK NOOP completed\r\n`);
        else if (verb === 'LOGOUT')
          socket.end(`* BYE Courier-IMAP server shutting down\r\n${tag} OK LOGOUT completed\r\n`);
        else if (verb === 'LOGIN' && args.length === 2 && passwords.get(args[0]!) === args[1]) {
          socket.off('data', onData);
          return startSession(socket, tag, args[0]!, buffer);
        } else if (verb === 'LOGIN') socket.write(`${tag} NO Login failed.\r\n`);
        else socket.write(`${tag} NO Error in IMAP command received by server.\r\n`);
      }
    };
    socket.on('data', onData);
  });

  function startSession(socket: net.Socket, tag: string, user: string, rest: Buffer) {
    const child = spawn(IMAPD, [path.join(mailDir, user)], {
      cwd: path.join(mailDir, user),
      env: {
        ...settings,
        LD_LIBRARY_PATH: libs,
        AUTHENTICATED: user,
        IMAPLOGINTAG: tag,
        HOME: path.join(mailDir, user),
        TCPREMOTEIP: '127.0.0.1',
        TCPREMOTEPORT: String(socket.remotePort ?? 0),
        PROTOCOL: 'IMAP',
        // gamin's file monitor, as the package's dependency installs it (its compiled-in path is
        // /usr/libexec): without it every command waits a second for a server that never comes.
        GAMIN_DEBUG_SERVER: path.join(COURIER_ROOT, 'usr/libexec/gam_server'),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
      ...(root ? { uid: account.uid, gid: account.gid } : {}),
    });
    sessions.add(child);
    // The connection ends with imapd, as couriertcpd's does (imapd's stdin and stdout are the
    // socket there): destroyed once its last words are written, not merely ended. Ended only, a
    // client that wrote after imapd exited (its DONE, or a command crossing the BYE) left bytes
    // in a socket no longer piped anywhere, so the socket never read the client's end, never
    // closed, and stop() waited for it forever: the teardown hang of loaded clean-clone runs.
    // 'close', not 'exit': by then imapd's output is all piped to the socket.
    child.on('close', () => {
      sessions.delete(child);
      socket.destroySoon();
    });
    child.stdin.on('error', () => {});
    if (rest.length > 0) child.stdin.write(rest);
    socket.pipe(child.stdin);
    child.stdout.pipe(socket);
    socket.on('close', () => child.kill('SIGTERM'));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    dir,
    url: (user, password = passwords.get(user) ?? '') =>
      `imap://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    addUser(user, password) {
      passwords.set(user, password);
      const home = path.join(mailDir, user);
      for (const sub of ['cur', 'new', 'tmp']) fs.mkdirSync(path.join(home, sub), { recursive: true });
      if (root)
        for (const p of [home, ...['cur', 'new', 'tmp'].map((s) => path.join(home, s))])
          fs.chownSync(p, account.uid, account.gid);
    },
    client: (user, password = passwords.get(user) ?? '') => loopbackClient(port, user, password),
    sessions: () => sessions.size,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const child of sessions) child.kill('SIGKILL');
      });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
