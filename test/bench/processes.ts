import { spawn, execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function waitForPort(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`port ${port} did not open`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Running {
  process: ChildProcess;
  smtpPort: number;
  httpPort: number;
  output: () => string;
  stop(): Promise<void>;
}

function track(child: ChildProcess) {
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return () => out;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Mailroom as its own process, the way `npm start` runs it. */
export async function startMailroom(
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  /** The checkout whose build runs: this one, or a baseline's (`npm run bench -- --baseline DIR`). */
  checkout = root,
): Promise<Running & { dataDir: string; apiKey: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-bench-'));
  const [smtpPort, httpPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [...nodeArgs, path.join(checkout, 'bin/mailroom.js'), 'serve'], {
    env: {
      ...process.env,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_SMTP_PORT: String(smtpPort),
      MAILROOM_HTTP_PORT: String(httpPort),
      MAILROOM_VERIFY_AUTH: 'false',
      MAILROOM_LOG_LEVEL: 'warn',
      MAILROOM_RATE_LIMIT: '100000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = track(child);
  try {
    // A start on a busy machine, or on an inbox of 100,000 messages, can take a while.
    await waitForPort(httpPort, 60_000);
    await waitForPort(smtpPort, 60_000);
  } catch (error) {
    await stopChild(child);
    throw new Error(`${(error as Error).message}; the server said:\n${output()}`, { cause: error });
  }
  const deadline = Date.now() + 10_000;
  while (!output().includes('Mailroom is running') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  const apiKey = /mr_live_[A-Za-z0-9_-]+/.exec(output())?.[0] ?? '';
  return {
    process: child,
    smtpPort,
    httpPort,
    output,
    dataDir,
    apiKey,
    async stop() {
      await stopChild(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** MailDev, the Node mail catcher named as the peer; installed on demand outside the project's dependencies. */
export async function startMaildev(): Promise<Running> {
  const prefix = path.join(root, '.tmp/peer');
  const bin = path.join(prefix, 'node_modules/maildev/dist/bin/maildev.js');
  if (!fs.existsSync(bin)) {
    fs.mkdirSync(prefix, { recursive: true });
    fs.writeFileSync(
      path.join(prefix, 'package.json'),
      JSON.stringify({
        name: 'mailroom-bench-peer',
        private: true,
        overrides: { '@zone-eu/mailsplit': '5.4.19', 'encoding-japanese': '2.4.0', libqp: '2.1.2' },
      }),
    );
    console.log('installing maildev@3 into .tmp/peer (once) ...');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', 'maildev@3'], {
      cwd: prefix,
      stdio: 'inherit',
    });
  }
  const [smtpPort, httpPort] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [
      bin,
      '--smtp',
      String(smtpPort),
      '--ip',
      '127.0.0.1',
      '--web',
      String(httpPort),
      '--web-ip',
      '127.0.0.1',
      '--silent',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = track(child);
  await waitForPort(smtpPort);
  return { process: child, smtpPort, httpPort, output, stop: () => stopChild(child) };
}

/** A bare smtp-server sink (test/bench/sink.ts) in its own process: what SMTP alone costs. */
export async function startSink(): Promise<Running> {
  const smtpPort = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'test/bench/sink.ts'), String(smtpPort)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = track(child);
  await waitForPort(smtpPort);
  return { process: child, smtpPort, httpPort: 0, output, stop: () => stopChild(child) };
}
