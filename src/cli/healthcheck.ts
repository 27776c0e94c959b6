import { ConfigError, loadConfig } from '../config.js';

/**
 * The container's health: GET /readyz (database open, listeners up) on the port and address
 * the server reads from the same MAILROOM_* settings. Exit 0 when ready, 1 otherwise, with one
 * line saying why (Docker keeps it in `docker inspect`). Needs only node, no curl.
 */
const TIMEOUT_MS = 2_500;

function localAddress(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

async function check(): Promise<{ ok: boolean; line: string }> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) return { ok: false, line: `bad setting: ${error.message}` };
    throw error;
  }
  if (config.httpPort === 0) return { ok: false, line: 'MAILROOM_HTTP_PORT is 0: no fixed port to check' };
  const url = `http://${localAddress(config.host)}:${config.httpPort}/readyz`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const body = (await res.text()).slice(0, 200);
    return { ok: res.status === 200, line: `${url}: ${res.status} ${body}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    return { ok: false, line: `${url}: unreachable (${cause})` };
  }
}

const result = await check();
(result.ok ? process.stdout : process.stderr).write(`${result.line}\n`);
process.exit(result.ok ? 0 : 1);
