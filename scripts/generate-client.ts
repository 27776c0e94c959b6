/**
 * npm run build, first step: writes the typed client's types (src/client/generated/) from the
 * OpenAPI documents the server serves. test/docs/client-types.test.ts fails when they are stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { clientTypeSources } from './client-types.js';
import { servedDocuments } from './served-documents.js';

const root = path.resolve(import.meta.dirname, '..');
for (const [file, text] of Object.entries(await clientTypeSources(await servedDocuments()))) {
  const target = path.join(root, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (fs.existsSync(target) && fs.readFileSync(target, 'utf8') === text) continue;
  fs.writeFileSync(target, text);
  console.log(`wrote ${file}`);
}
