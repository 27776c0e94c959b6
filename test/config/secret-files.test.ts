import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-config-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  return p;
}

const KEY = `mr_live_${'a'.repeat(43)}`;

describe('secrets from files (<VARIABLE>_FILE)', () => {
  it('reads the admin token, metrics token, secret, relay URL and bootstrap key, dropping the final newline', () => {
    const config = loadConfig(
      {},
      {
        MAILROOM_ADMIN_TOKEN_FILE: file('admin', 'admin-token-0123456789\n'),
        MAILROOM_METRICS_TOKEN_FILE: file('metrics', 'metrics-token-0123456789\r\n'),
        MAILROOM_SECRET_FILE: file('secret', 'a-secret-of-enough-length'),
        MAILROOM_OUTBOUND: 'relay',
        MAILROOM_RELAY_URL_FILE: file('relay', 'smtp://u:p@relay.example:587\n'),
        MAILROOM_BOOTSTRAP_KEY_FILE: file('key', `${KEY}\n`),
      },
    );
    expect(config).toMatchObject({
      adminToken: 'admin-token-0123456789',
      metricsToken: 'metrics-token-0123456789',
      secret: 'a-secret-of-enough-length',
      relayUrl: 'smtp://u:p@relay.example:587',
      bootstrapKey: KEY,
    });
  });

  it('refuses a variable given both ways, and a file it cannot read, naming the variable', () => {
    const both = {
      MAILROOM_ADMIN_TOKEN: 'x'.repeat(20),
      MAILROOM_ADMIN_TOKEN_FILE: file('t', 'y'.repeat(20)),
    };
    expect(() => loadConfig({}, both)).toThrow(
      new ConfigError('MAILROOM_ADMIN_TOKEN and MAILROOM_ADMIN_TOKEN_FILE are both set: keep one'),
    );
    expect(() => loadConfig({}, { MAILROOM_SECRET_FILE: path.join(dir, 'missing') })).toThrow(
      /^MAILROOM_SECRET_FILE: cannot read .*missing \(ENOENT\)$/,
    );
  });

  it('says what is wrong with a bad secret without repeating it', () => {
    const attempt = () => loadConfig({}, { MAILROOM_BOOTSTRAP_KEY: 'mr_live_short-and-leaked' });
    expect(attempt).toThrow(/^MAILROOM_BOOTSTRAP_KEY: must be mr_live_ and then 32 or more/);
    expect(attempt).not.toThrow(/leaked/);
    expect(() => loadConfig({}, { MAILROOM_HTTP_PORT: 'eighty' })).toThrow(/\(got "eighty"\)/);
  });
});
