// Engines: SQLite only: the settings and the bootstrap that reads them are the same on either engine.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startServer } from '../helpers/server.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-dkim-key-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const published = crypto.generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
});

describe('MAILROOM_DKIM_KEY and MAILROOM_DKIM_SELECTOR', () => {
  it("make the first start's domain sign with the key already published, under its selector", async () => {
    const server = await startServer({ dkimKey: published.privateKey, dkimSelector: 'moved2019' });
    try {
      const domain = await server.mailroom.deps.store.domains.find('mailroom.test');
      expect(domain).toMatchObject({ dkim_selector: 'moved2019', dkim_public_key: published.publicKey });
    } finally {
      await server.stop();
    }
  });

  it('read the key from MAILROOM_DKIM_KEY_FILE', () => {
    const file = path.join(dir, 'dkim.pem');
    fs.writeFileSync(file, published.privateKey);
    expect(loadConfig({}, { MAILROOM_DKIM_KEY_FILE: file }).dkimKey).toBe(published.privateKey.trimEnd());
  });

  it('refuse a key DKIM cannot sign with and a selector that is no DNS label, naming the setting and not the key', () => {
    const short = crypto
      .generateKeyPairSync('rsa', { modulusLength: 512 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const refusal = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig({}, env);
      } catch (error) {
        return error;
      }
      return null;
    };
    const refused = refusal({ MAILROOM_DKIM_KEY: short });
    expect(refused).toBeInstanceOf(ConfigError);
    expect(String(refused)).toMatch(/MAILROOM_DKIM_KEY.*RSA private key of 1024 bits or more/);
    expect(String(refused)).not.toContain('PRIVATE KEY');
    expect(refusal({ MAILROOM_DKIM_SELECTOR: 'two words' })).toBeInstanceOf(ConfigError);
  });
});
