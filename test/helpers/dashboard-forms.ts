import http from 'node:http';

/**
 * A form POST to the dashboard as a browser on the same site sends it (its Origin is the
 * server's); the answer is not followed. `localAddress` picks the client's source address (any of
 * 127.0.0.0/8 on loopback), so one test can be several clients.
 */
export function postForm(
  base: string,
  pathname: string,
  fields: Record<string, string>,
  options: { headers?: Record<string, string>; localAddress?: string } = {},
): Promise<Response> {
  const url = new URL(pathname, base);
  const body = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        agent: false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          origin: base,
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
              headers.append(name, one);
          }
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode!, headers }));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The session cookie an answer sets, as `name=value`, or undefined. */
export const sessionCookie = (res: Response): string | undefined =>
  /mailroom_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
