import type { Socket } from 'node:net';
import type { SMTPServer } from 'smtp-server';

/**
 * The parts of smtp-server (3.x, not public API) this needs: `connect` makes a connection, adds it
 * to `connections` and calls its `init`, which (for a socket without implicit TLS, at once) arms
 * a 100 ms timer that calls `connectionReady`: onConnect, then the greeting.
 * test/e2e/smtp-trusted-networks.test.ts fails if a new version moves them.
 */
interface ServerInternals {
  connect(socket: Socket, options: unknown): void;
  connections: Set<ConnectionInternals>;
}
interface ConnectionInternals {
  remoteAddress: string;
  needsUpgrade: boolean;
  connectionReady(): void;
}

/**
 * Clients on the trusted networks are greeted at once. smtp-server holds every greeting 100 ms
 * to catch clients that talk before it (spam software does; "421 You talk too soon"), as Postfix's
 * postscreen does for the internet; Postfix spares mynetworks, and so does this: a test suite or
 * a local MTA that sends one message per connection (nodemailer's default) waited 100 ms for
 * each. Every other client still waits. With implicit TLS the greeting follows the handshake, as
 * before.
 */
export function greetTrustedAtOnce(server: SMTPServer, trusted: (address: string) => boolean): void {
  const internals = server as unknown as ServerInternals;
  const connect = internals.connect.bind(server);
  internals.connect = (socket, options) => {
    connect(socket, options);
    let connection: ConnectionInternals | undefined;
    for (const each of internals.connections) connection = each;
    if (!connection || connection.needsUpgrade || !trusted(connection.remoteAddress)) return;
    const ready = connection.connectionReady.bind(connection);
    let greeted = false;
    // The timer still fires; by then the connection has been greeted.
    connection.connectionReady = () => {
      if (greeted) return;
      greeted = true;
      ready();
    };
    connection.connectionReady();
  };
}
