import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createMailroom } from '../../src/mailroom.js';
import type { Mailroom } from '../../src/mailroom.js';

export interface SecondNode {
  mailroom: Mailroom;
  stop(): Promise<void>;
}

/**
 * Another node on a test server's PostgreSQL: the same database and secret, its own listeners,
 * memory and data directory, so nothing passes between the two but the database.
 */
export async function startSecondNode(databaseUrl: string, secret: string): Promise<SecondNode> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-node-b-'));
  const mailroom = createMailroom({
    databaseUrl,
    secret,
    nodeId: 'node-b',
    env: {},
    dataDir,
    host: '127.0.0.1',
    httpPort: 0,
    smtpPort: 0,
    verifyAuth: false,
    logger: pino({ level: 'silent' }),
  });
  await mailroom.start();
  return {
    mailroom,
    async stop() {
      await mailroom.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
