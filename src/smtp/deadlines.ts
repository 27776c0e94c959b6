import type { SMTPServer, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';

/**
 * The parts of smtp-server's connection (3.x, not public API) the command deadline needs: every
 * complete command line passes through `_onCommand`, whose callback runs once its reply is written;
 * `_dataStream` is set from DATA until the reply to the message; `send(421)` replies and closes.
 * Kept to this one file; test/e2e/smtp-limits.test.ts fails if a new version moves them.
 */
interface ConnectionInternals {
  session: SMTPServerSession;
  _onCommand(command: Buffer, callback?: () => void): void;
  _dataStream: unknown;
  _upgrading: boolean;
  send(code: number, text: string): void;
}

export interface CommandDeadline {
  /** Starts the clock for the next command line (after the reply to a message). */
  arm(): void;
  stop(): void;
}

/**
 * A client must send each complete command line within `timeoutMs` of being able to (greeting or
 * previous reply sent); smtp-server's own idle timeout restarts on every byte, so a client
 * trickling a byte at a time would otherwise hold its slot forever. Paused while a message is
 * transferred (DATA has its own deadline) and while the server is busy replying.
 */
export function commandDeadline(
  server: SMTPServer,
  session: SMTPServerSession,
  timeoutMs: number,
  expired: string,
): CommandDeadline | null {
  const connection = [...(server.connections as Set<unknown> as Set<ConnectionInternals>)].find(
    (c) => c.session === session,
  );
  if (!connection) return null;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const expire = () => {
    if (connection._upgrading) return arm();
    if (!connection._dataStream) connection.send(421, expired);
  };
  const arm = () => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(expire, timeoutMs);
    timer.unref();
  };
  const handle = connection._onCommand.bind(connection);
  connection._onCommand = (command, callback) => {
    clearTimeout(timer);
    handle(command, () => {
      if (!connection._dataStream) arm();
      callback?.();
    });
  };
  arm();
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  return { arm, stop };
}

export interface DataLimits {
  /** Longest a whole message may take. */
  timeoutMs: number;
  /** Bytes per second the message must average once the grace is over. */
  minRate: number;
  graceMs: number;
}

/**
 * Calls `expired` once a message transfer runs past its whole deadline or falls below the minimum
 * rate: by then it must have received `minRate` bytes for every second after the grace. One timer,
 * set for the moment the bytes received so far stop being enough.
 */
export function dataDeadline(
  stream: SMTPServerDataStream,
  limits: DataLimits,
  expired: () => void,
): { stop(): void } {
  const start = Date.now();
  const hardEnd = start + limits.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const enoughUntil = start + limits.graceMs + (stream.byteLength / limits.minRate) * 1000;
    const end = Math.min(hardEnd, enoughUntil);
    const now = Date.now();
    if (now >= end) return expired();
    schedule(end - now);
  };
  const schedule = (ms: number) => {
    timer = setTimeout(check, ms);
    timer.unref();
  };
  schedule(Math.min(limits.timeoutMs, limits.graceMs));
  return { stop: () => clearTimeout(timer) };
}
