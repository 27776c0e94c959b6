import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, settings } from '../../src/config.js';
import { mailroom } from '../helpers/cli.js';

/** Secrets as a user might mistype them: each unique, so a leak names its setting. */
const secret = (name: string) => `Pw${name.replace(/[^A-Za-z]/g, '')}9x`;
/** A value that holds the secret and is not valid for the setting (or, for free text, is a URL with a password). */
function malformed(key: string): string {
  const s = secret(key);
  if (key === 'secret' || key === 'adminToken' || key === 'metricsToken') return s.slice(0, 12);
  return `smtp//relayuser:${s}@relay.example`;
}

describe('no secret in an error message', { timeout: 180_000 }, () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-nosecret-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('every setting rejected with a secret in its value names the setting, not the secret', () => {
    let rejected = 0;
    for (const [key, setting] of Object.entries(settings)) {
      for (const value of [malformed(key), `http://u:${secret(key)}@x.example`, `u:${secret(key)}@x`]) {
        let message = '';
        try {
          loadConfig({}, { [setting.env]: value });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          message = (error as Error).message;
          rejected++;
        }
        expect(message).not.toContain(secret(key));
        if (message) expect(message).toContain(setting.env);
      }
    }
    // Most settings refuse such values (the free-text ones, like MAILROOM_DOMAIN, take them).
    expect(rejected).toBeGreaterThan(Object.keys(settings).length);
  });

  it('the CLI and serve print no secret for malformed settings, a mistyped flag or a bad TLS key', async () => {
    const keyFile = path.join(dir, 'key.pem');
    fs.writeFileSync(keyFile, `not a key but a secret: ${secret('tlskeycontent')}\n`);
    const dataDir = path.join(dir, 'data');
    const base = { MAILROOM_DATA_DIR: dataDir, MAILROOM_LOG_LEVEL: 'info' };
    const serve = ['serve', '--http-port', '0', '--smtp-port', '0'];
    const runs: [string[], Record<string, string>, string][] = [
      [['user', 'list'], { MAILROOM_RELAY_URL: malformed('relayUrl') }, secret('relayUrl')],
      [
        serve,
        { MAILROOM_RELAY_URL: `http://relayuser:${secret('relayUrl')}@relay.example` },
        secret('relayUrl'),
      ],
      [
        serve,
        { MAILROOM_OUTBOUND: 'relay', MAILROOM_RELAY_URL: `smtp://u:${secret('relayUrl')}` },
        secret('relayUrl'),
      ],
      [['domain', 'list', '--json'], { MAILROOM_SECRET: malformed('secret') }, malformed('secret')],
      [serve, { MAILROOM_ADMIN_TOKEN: malformed('adminToken') }, malformed('adminToken')],
      [serve, { MAILROOM_METRICS_TOKEN: malformed('metricsToken') }, malformed('metricsToken')],
      [serve, { MAILROOM_MAX_RECIPIENTS: malformed('maxRecipients') }, secret('maxRecipients')],
      [serve, { MAILROOM_HOST: `u:${secret('host')}@no-such-host.invalid` }, secret('host')],
      [serve, { MAILROOM_TLS_CERT: keyFile, MAILROOM_TLS_KEY: keyFile }, secret('tlskeycontent')],
      [[...serve, `--admin-tokn=${secret('flag')}`], {}, secret('flag')],
      [
        ['inbox', 'connect', 'me@gmail.example', '--user', 'nobody', '--init', '--smtp', 'smtp://h.example'],
        {},
        secret('imap'),
      ],
    ];
    runs.at(-1)![0].push('--imap', `imaps://me:${secret('imap')}@`);
    const results = await Promise.all(runs.map(([args, env]) => mailroom(args, { ...base, ...env })));
    results.forEach((result, i) => {
      const [args, , leaked] = runs[i]!;
      const label = `${args.join(' ')} ${JSON.stringify(runs[i]![1])}: ${result.stdout}${result.stderr}`;
      expect(result.code, label).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`, label).not.toContain(leaked);
      // Each is still told what is wrong, in one line, naming the setting or the option.
      expect(`${result.stdout}${result.stderr}`, label).toMatch(/MAILROOM_|--|user|imap/);
      expect(result.stderr, label).not.toMatch(/\n\s+at /);
    });
  });
});
