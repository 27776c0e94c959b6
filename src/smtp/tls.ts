import fs from 'node:fs';
import tls from 'node:tls';
import { ConfigError } from '../config.js';
import type { Logger } from 'pino';
import type { SMTPServer } from 'smtp-server';

export interface TlsFiles {
  cert: string;
  key: string;
}

/**
 * The PEM files, read and loaded now: a missing or unreadable file, or a pair that does not
 * load, stops the start with one line naming the setting (and the path, never the contents).
 */
export function readTlsFiles(files: TlsFiles): { cert: Buffer; key: Buffer } {
  const read = (file: string, setting: string) => {
    try {
      return fs.readFileSync(file);
    } catch (error) {
      throw new ConfigError(`${setting}: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
    }
  };
  const pair = { cert: read(files.cert, 'MAILROOM_TLS_CERT'), key: read(files.key, 'MAILROOM_TLS_KEY') };
  try {
    tls.createSecureContext(pair);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error:[0-9A-F]+:/, '');
    throw new ConfigError(
      `MAILROOM_TLS_CERT and MAILROOM_TLS_KEY: ${files.cert} and ${files.key} are not a PEM certificate and its private key (${reason})`,
    );
  }
  return pair;
}

const stampOf = async (files: TlsFiles): Promise<string> => {
  const stats = await Promise.all([fs.promises.stat(files.cert), fs.promises.stat(files.key)]);
  return stats.map((s) => `${s.ino}:${s.size}:${s.mtimeMs}`).join('|');
};

/**
 * Returns a check to run as each connection arrives: when either file changed since the last
 * load, the server's secure context is rebuilt from them, so a renewed certificate is used by
 * the next STARTTLS without a restart. A pair that does not load (a renewal half written) is
 * logged and the previous one kept; the next change is tried again.
 */
export function tlsReloader(server: SMTPServer, files: TlsFiles, log: Logger): () => Promise<void> {
  let loaded: Promise<string> = stampOf(files).catch(() => '');
  let running: Promise<void> | null = null;
  const reload = async () => {
    try {
      const stamp = await stampOf(files);
      if (stamp === (await loaded)) return;
      loaded = Promise.resolve(stamp);
      const [cert, key] = await Promise.all([
        fs.promises.readFile(files.cert),
        fs.promises.readFile(files.key),
      ]);
      server.updateSecureContext({ cert, key });
      log.info({ cert: files.cert }, 'reloaded the SMTP TLS certificate');
    } catch (error) {
      log.warn({ err: error, cert: files.cert, key: files.key }, 'SMTP TLS certificate not reloaded');
    }
  };
  return () => {
    running ??= reload().finally(() => {
      running = null;
    });
    return running;
  };
}
