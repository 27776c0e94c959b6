import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { secondsLeft, sendRateLimited, setRateLimitHeaders } from './rate-limit.js';

/** Failed attempts are counted in fixed windows of this length from a client's first failure. */
export const AUTH_FAILURE_WINDOW_MS = 60_000;
/** Client addresses tracked at most; past it expired windows go first, then the oldest. */
export const AUTH_THROTTLE_MAX_TRACKED = 10_000;

interface Window {
  start: number;
  failures: number;
}

/** The address the connection comes from (a proxy's, behind one: forwarded headers can be forged). */
export function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket.remoteAddress ?? 'unknown';
}

/**
 * Slows down guessing of API keys and admin tokens: after `limit` failed attempts from one client
 * address within a window, every request from that address is 429 until the window ends,
 * before any key is looked at. Nothing resets a count early, a success included, so a caller
 * holding one valid key cannot use it to keep guessing others.
 */
export class AuthThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly limit: number,
    private readonly windowMs = AUTH_FAILURE_WINDOW_MS,
    private readonly maxTracked = AUTH_THROTTLE_MAX_TRACKED,
  ) {}

  /** Seconds until `address` may try again, or 0 when it may now. */
  blockedFor(address: string, now = Date.now()): number {
    const window = this.current(address, now);
    return window && window.failures >= this.limit ? secondsLeft(window.start, this.windowMs, now) : 0;
  }

  /** Counts a failed attempt; returns the attempts left in the window and when it resets. */
  fail(address: string, now = Date.now()): { remaining: number; resetSeconds: number } {
    let window = this.current(address, now);
    if (!window) {
      window = { start: now, failures: 0 };
      this.track(address, window, now);
    }
    window.failures += 1;
    return {
      remaining: this.limit - window.failures,
      resetSeconds: secondsLeft(window.start, this.windowMs, now),
    };
  }

  /** How many addresses are tracked now (bounded by maxTracked). */
  get tracked(): number {
    return this.windows.size;
  }

  /** Middleware to place before authentication: 429 for an address over its limit. */
  guard(): MiddlewareHandler {
    return async (c, next) => {
      const wait = this.blockedFor(clientAddress(c));
      if (wait === 0) return next();
      setRateLimitHeaders(c, this.limit, 0, wait);
      return sendRateLimited(c, wait, `too many failed authentication attempts; retry in ${wait}s`);
    };
  }

  /** For the authentication to call on a failure: counts it and says what is left on the response. */
  failed(c: Context): void {
    const { remaining, resetSeconds } = this.fail(clientAddress(c));
    setRateLimitHeaders(c, this.limit, remaining, resetSeconds);
  }

  private current(address: string, now: number): Window | undefined {
    const window = this.windows.get(address);
    if (window && now - window.start >= this.windowMs) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }

  private track(address: string, window: Window, now: number): void {
    if (this.windows.size >= this.maxTracked) {
      for (const [a, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(a);
      // Still full: forget the oldest windows (Map keeps insertion order).
      for (const a of this.windows.keys()) {
        if (this.windows.size < this.maxTracked) break;
        this.windows.delete(a);
      }
    }
    this.windows.set(address, window);
  }
}
