// Engines: SQLite only: the Courier-IMAP test helper itself; no Mailroom server and no database.
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { Courier } from '../helpers/courier.js';
import { startCourier } from '../helpers/courier.js';
import { eventually } from '../helpers/server.js';

/** Writes IMAP command lines and collects what the server says, until it hangs up. */
function rawSession(port: number) {
  // Half-open allowed: this client ends its side when the test says, not when the server ends its own.
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let said = '';
  socket.on('data', (chunk: Buffer) => (said += chunk.toString('latin1')));
  const until = (pattern: RegExp) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!pattern.test(said)) return;
        socket.off('data', check);
        resolve();
      };
      socket.on('data', check);
      check();
    });
  const serverEnded = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  return { socket, until, serverEnded, said: () => said };
}

describe('the Courier-IMAP test helper', () => {
  let courier: Courier | undefined;
  afterAll(() => courier?.stop());

  // The order a loaded machine showed: imapd gone before the client's last bytes and its end
  // arrived. The helper only ended its side then, the bytes sat in a socket piped nowhere, its
  // end was never read, and stop() waited forever (imap-courier's teardown in clean-clone runs).
  it('stops when a client wrote and hung up after imapd had ended its session', async () => {
    courier = await startCourier();
    courier.addUser('late@example.net', 'pw');
    const session = rawSession(courier.port);
    await session.until(/^\* OK/m);
    session.socket.write('a1 LOGIN late@example.net pw\r\n');
    await session.until(/^a1 OK/m);
    session.socket.write('a2 LOGOUT\r\n');
    await session.serverEnded;
    expect(session.said()).toMatch(/^a2 OK/m);
    await eventually(() => courier!.sessions() === 0);
    session.socket.end('a3 NOOP\r\n');
    await courier.stop();
    courier = undefined;
  });
});
