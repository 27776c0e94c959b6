import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientTypeSources } from '../../scripts/client-types.js';
import { servedDocuments } from '../../scripts/served-documents.js';
import type { ServedDocuments } from '../../scripts/served-documents.js';

const root = path.resolve(import.meta.dirname, '../..');

function operationIds(document: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const item of Object.values(
    document.paths as Record<string, Record<string, { operationId?: string }>>,
  ))
    for (const operation of Object.values(item)) if (operation.operationId) ids.push(operation.operationId);
  return ids;
}

describe('the typed client (mailroom-server/client)', { timeout: 60_000 }, () => {
  let documents: ServedDocuments;

  it('has the types the served OpenAPI documents generate now (npm run build writes them)', async () => {
    documents = await servedDocuments();
    for (const [file, text] of Object.entries(await clientTypeSources(documents))) {
      const committed = fs.readFileSync(path.join(root, file), 'utf8');
      expect(committed === text, `${file} is stale against the served document: run npm run build`).toBe(
        true,
      );
    }
  });

  it('covers every operation of the API and the admin API, each with an operationId', () => {
    const generated = {
      api: fs.readFileSync(path.join(root, 'src/client/generated/api.ts'), 'utf8'),
      admin: fs.readFileSync(path.join(root, 'src/client/generated/admin.ts'), 'utf8'),
    };
    for (const which of ['api', 'admin'] as const) {
      const ids = operationIds(documents[which]);
      const operations = Object.values(documents[which].paths as object).flatMap((item) => Object.keys(item));
      expect(ids).toHaveLength(operations.length);
      for (const id of ids) expect(generated[which], id).toContain(`\n    ${id}: {`);
    }
    expect(operationIds(documents.api)).toEqual(
      expect.arrayContaining(['emptyFolder', 'createEventStreamToken']),
    );
  });
});
