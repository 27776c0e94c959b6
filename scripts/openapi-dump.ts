/**
 * Writes the OpenAPI documents the server serves (the API's and the admin API's) to .tmp/ (for
 * `redocly lint`), without opening a port.
 */
import fs from 'node:fs';
import path from 'node:path';
import { servedDocuments } from './served-documents.js';

const outDir = path.resolve(process.argv[2] ?? '.tmp');
fs.mkdirSync(outDir, { recursive: true });
const documents = await servedDocuments();
for (const [name, document] of [
  ['openapi.json', documents.api],
  ['admin-openapi.json', documents.admin],
] as const) {
  const file = path.join(outDir, name);
  fs.writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
