/**
 * `mailroom-server/client`: a typed HTTP client for every operation of Mailroom's API and admin
 * API, on openapi-fetch, with the types generated from the OpenAPI documents the server serves.
 *
 *   const mail = createMailroomClient({ url: 'http://127.0.0.1:3000', apiKey });
 *   const { data, error } = await mail.GET('/emails', { params: { query: { account } } });
 *   const email = await mail.waitForEmail({ account, subject: 'Welcome' });
 */
import createClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import type { AdminPaths, ApiPaths, Email } from './types.js';
import { waitForEmailOverHttp } from './wait-over-http.js';
import type { WaitForEmailOptions } from './waiting.js';

export * from './types.js';
export { MailroomApiError } from './api-error.js';
export { EmailWaitTimeout, DEFAULT_WAIT_MS } from './waiting.js';
export type { WaitForEmailOptions, SeenEmail, ListFilters } from './waiting.js';

export interface ClientConnection {
  /** The server's address, as `mailroom mcp --url` takes it: `http://127.0.0.1:3000`. */
  url: string;
  /** Another fetch (a proxy's, a test's); globalThis.fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request (an X-Request-Id, say). */
  headers?: Record<string, string>;
}

export interface MailroomClientOptions extends ClientConnection {
  /** An API key (`mr_live_...`). */
  apiKey: string;
}

export interface MailroomAdminClientOptions extends ClientConnection {
  /** MAILROOM_ADMIN_TOKEN. */
  token: string;
}

/** Every `/api/v1` operation by path and method (`GET`, `POST`...), plus `waitForEmail`. */
export type MailroomClient = Client<ApiPaths> & {
  /**
   * The first email matching the filters, read whole: at once when one is there, else as soon as
   * one arrives (long-polling `GET /emails?wait=`), else EmailWaitTimeout after `timeoutMs`.
   */
  waitForEmail(options: WaitForEmailOptions): Promise<Email>;
};

/** Every `/admin/v1` operation by path and method. */
export type MailroomAdminClient = Client<AdminPaths>;

function connect<Paths extends object>(connection: ClientConnection, base: string, secret: string) {
  return createClient<Paths>({
    baseUrl: `${connection.url.replace(/\/+$/, '')}${base}`,
    headers: { ...connection.headers, Authorization: `Bearer ${secret}` },
    ...(connection.fetch ? { fetch: connection.fetch } : {}),
  });
}

export function createMailroomClient(options: MailroomClientOptions): MailroomClient {
  const client = connect<ApiPaths>(options, '/api/v1', options.apiKey);
  return Object.assign(client, {
    waitForEmail: (wait: WaitForEmailOptions) => waitForEmailOverHttp(client, wait),
  });
}

export function createMailroomAdminClient(options: MailroomAdminClientOptions): MailroomAdminClient {
  return connect<AdminPaths>(options, '/admin/v1', options.token);
}
