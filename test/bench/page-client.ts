import net from 'node:net';

/** A read's bytes go into this one buffer, reused: a response makes no garbage in the client. */
const READ_BUFFER_BYTES = 256 * 1024;
const MAX_HEAD_BYTES = 8 * 1024;

interface InFlight {
  resolve: (status: number) => void;
  reject: (error: Error) => void;
  status: number;
  /** Body bytes still to come; -1 until the head has been read. */
  remaining: number;
  head: string;
}

/**
 * A bench's HTTP/1.1 client for sequential GETs on one kept-alive connection per origin, reading
 * each response into one reused buffer (`net`'s `onread`) and keeping only its status. The list
 * bench times pages of ~89 KB on the same two cores as the server: `node:http` makes a Buffer of
 * every chunk it reads, and the client's own collections of them (2-9 ms pauses every 100-200 ms
 * of requests, in a process that has just filed 100,000 messages) were most of the pages a
 * client saw take over 10 ms while the server's own histogram counted none. Bodies must come
 * with a Content-Length (Hono's JSON answers do).
 */
export class PageClient {
  private socket: net.Socket | undefined;
  private inFlight: InFlight | undefined;
  private readonly buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  get(path: string, headers: Record<string, string>): Promise<number> {
    if (this.inFlight) return Promise.reject(new Error('PageClient: one request at a time'));
    const socket = this.connected();
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    return new Promise((resolve, reject) => {
      this.inFlight = { resolve, reject, status: 0, remaining: -1, head: '' };
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n${lines.join('')}\r\n`);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private connected(): net.Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = net.connect({
      host: this.host,
      port: this.port,
      noDelay: true,
      onread: {
        buffer: this.buffer,
        callback: (size) => {
          this.received(size);
          return true;
        },
      },
    });
    const fail = (error: Error) => {
      const request = this.inFlight;
      this.inFlight = undefined;
      request?.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('PageClient: the server closed the connection')));
    this.socket = socket;
    return socket;
  }

  private received(size: number): void {
    const request = this.inFlight;
    if (!request) return;
    let body = size;
    if (request.remaining < 0) {
      const before = request.head.length;
      request.head += this.buffer.toString('latin1', 0, Math.min(size, MAX_HEAD_BYTES));
      const end = request.head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (request.head.length >= MAX_HEAD_BYTES) this.failWith(new Error('PageClient: a head over 8 KB'));
        return;
      }
      const head = request.head.slice(0, end);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (!length) return this.failWith(new Error(`PageClient: no Content-Length in ${head}`));
      request.status = Number(head.slice(9, 12));
      request.remaining = Number(length[1]);
      body = size - (end + 4 - before);
    }
    request.remaining -= body;
    if (request.remaining > 0) return;
    this.inFlight = undefined;
    request.resolve(request.status);
  }

  private failWith(error: Error): void {
    const request = this.inFlight;
    this.inFlight = undefined;
    this.close();
    request?.reject(error);
  }
}
