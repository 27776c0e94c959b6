/**
 * Writes the OpenAPI documents the server serves (the API's and the admin API's) to .tmp/ (for `redocly lint`), without opening
 * a port: the app answers in-process on a throwaway in-memory database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createMailroom } from '../src/mailroom.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-openapi-'));
const mailroom = createMailroom({
  env: {},
  dataDir,
  dbFile: ':memory:',
  parseThreads: 0,
  adminToken: 'openapi-dump-only-token', // the admin document is served only while the admin API is on
  logger: pino({ level: 'silent' }),
});
const outDir = path.resolve(process.argv[2] ?? '.tmp');
fs.mkdirSync(outDir, { recursive: true });
for (const [route, name] of [
  ['/api/v1/openapi.json', 'openapi.json'],
  ['/admin/v1/openapi.json', 'admin-openapi.json'],
]) {
  const res = await mailroom.app.request(route!);
  if (res.status !== 200) throw new Error(`${route} answered ${res.status}`);
  const file = path.join(outDir, name!);
  fs.writeFileSync(file, `${JSON.stringify(await res.json(), null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
fs.rmSync(dataDir, { recursive: true, force: true });
