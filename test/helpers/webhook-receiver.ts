import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  /** The `webhook-id` header: the receiver's deduplication key. */
  id: string;
  headers: Record<string, string>;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  /** What this receiver answered (null: it hung). */
  answered: number | null;
  /** Date.now() on arrival, for latency measurements. */
  receivedAt: number;
}

/**
 * A real HTTP endpoint on 127.0.0.1 that records every webhook request. It can be told to fail
 * the next N requests, to answer one status for good (410...), to hang, or to go down and come
 * back on the same port.
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private server: http.Server;
  private readonly sockets = new Set<Socket>();
  private failuresLeft = 0;
  private failureStatus = 500;
  private fixedStatus: number | null = null;
  private hanging = false;
  /** Picks the status for the n-th request (1-based), null for the default; for flaky or picky endpoints. */
  failWhen: ((n: number, request: ReceivedRequest) => number | null) | null = null;
  private port = 0;

  private constructor() {
    this.server = this.createServer();
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await receiver.listen(0);
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Answers the next `n` requests with `status`, then recovers. */
  failNext(n: number, status = 500): void {
    this.failuresLeft = n;
    this.failureStatus = status;
  }

  /** Answers every request with `status` until called with null. */
  answerAlways(status: number | null): void {
    this.fixedStatus = status;
  }

  /** Leaves requests unanswered (until called with false). */
  hang(on = true): void {
    this.hanging = on;
  }

  /** Requests answered 2xx. */
  get delivered(): ReceivedRequest[] {
    return this.requests.filter((r) => r.answered !== null && r.answered >= 200 && r.answered < 300);
  }

  /** Distinct webhook-ids answered 2xx: what a deduplicating receiver has processed. */
  distinctDelivered(): Set<string> {
    return new Set(this.delivered.map((r) => r.id));
  }

  /** Stops listening and drops open connections: the endpoint is down. */
  async down(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  /** Listens again on the same port. */
  async up(): Promise<void> {
    this.server = this.createServer();
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    if (this.server.listening) await this.down();
  }

  private createServer(): http.Server {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    return server;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    let json: unknown = null;
    try {
      json = JSON.parse(body);
    } catch {
      // recorded as is
    }
    const record: ReceivedRequest = {
      id: headers['webhook-id'] ?? '',
      headers,
      body,
      json,
      answered: null,
      receivedAt: Date.now(),
    };
    this.requests.push(record);
    if (this.hanging) return;
    let status = this.failWhen?.(this.requests.length, record) ?? this.fixedStatus ?? 200;
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      status = this.failureStatus;
    }
    record.answered = status;
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(status < 300 ? 'ok' : 'no');
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }
}
