import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startDaemon } from './daemon.js';
import { freePort } from './host.js';

/** Where Debian's clamav-daemon puts the binary; scripts/ensure-test-deps.sh installs it. */
export const CLAMD_BIN = process.env.CLAMD_BIN ?? '/usr/sbin/clamd';

/**
 * A string the test signature matches, in a message's text or in a decoded attachment. No
 * signature can be downloaded here, so the tests' clamd knows this one alone.
 */
export const TEST_VIRUS = 'MAILROOM-TEST-VIRUS-7f3a9c';
/** The name clamd gives it (its own signatures are marked UNOFFICIAL). */
export const TEST_VIRUS_NAME = 'Mailroom.Test.Virus-1.UNOFFICIAL';

export interface Clamd {
  /** `tcp://127.0.0.1:port`, as MAILROOM_CLAMD takes it. */
  tcp: string;
  /** Its local socket's path, the other form MAILROOM_CLAMD takes. */
  socket: string;
  stop(): Promise<void>;
}

/** A real clamd on a loopback port and a local socket, with a signature database of one test signature. */
export async function startClamd(): Promise<Clamd> {
  if (!fs.existsSync(CLAMD_BIN)) {
    throw new Error(
      `${CLAMD_BIN} not found: install Debian package clamav-daemon (scripts/ensure-test-deps.sh)`,
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-clamd-'));
  const db = path.join(dir, 'db');
  fs.mkdirSync(db);
  fs.writeFileSync(
    path.join(db, 'mailroom-test.ndb'),
    `Mailroom.Test.Virus-1:0:*:${Buffer.from(TEST_VIRUS).toString('hex')}\n`,
  );
  const port = await freePort();
  const socket = path.join(dir, 'clamd.sock');
  const logFile = path.join(dir, 'clamd.log');
  const conf = path.join(dir, 'clamd.conf');
  fs.writeFileSync(
    conf,
    [
      'Foreground yes',
      `DatabaseDirectory ${db}`,
      `TCPSocket ${port}`,
      'TCPAddr 127.0.0.1',
      `LocalSocket ${socket}`,
      `LogFile ${logFile}`,
      // Above MAILROOM_MAX_MESSAGE_BYTES (25 MB) and the Received line Mailroom adds.
      'StreamMaxLength 50M',
      '',
    ].join('\n'),
  );
  const daemon = await startDaemon({
    name: 'clamd',
    bin: CLAMD_BIN,
    args: ['-c', conf],
    logFile,
    ready: () => ping(port),
  });
  return {
    tcp: `tcp://127.0.0.1:${port}`,
    socket,
    async stop() {
      await daemon.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('connect', () => socket.write('zPING\0'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\0')) {
        socket.destroy();
        resolve(answer.startsWith('PONG'));
      }
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(false));
  });
}
