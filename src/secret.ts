import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import { createDataDir, SECRET_FILE } from './db/file-modes.js';

/** MAILROOM_SECRET, or the data directory's secret.key; undefined when there is neither (nothing is created). */
export function findSecret(config: Config): string | undefined {
  if (config.secret) return config.secret;
  const file = path.join(path.dirname(config.dbFile), SECRET_FILE);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined;
}

/** MAILROOM_SECRET, or the one generated into the data directory on first use (server and CLI alike). */
export function loadOrCreateSecret(config: Config): string {
  if (config.secret) return config.secret;
  if (config.dbFile === ':memory:') return crypto.randomBytes(32).toString('base64url');
  const found = findSecret(config);
  if (found) return found;
  const dir = path.dirname(config.dbFile);
  const file = path.join(dir, SECRET_FILE);
  createDataDir(dir);
  const secret = crypto.randomBytes(32).toString('base64url');
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
