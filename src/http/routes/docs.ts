import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Hono } from 'hono';

const require = createRequire(import.meta.url);
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mailroom API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui', persistAuthorization: true });</script>
</body></html>`;

/** An interactive API reference served from the swagger-ui-dist package: works offline. */
export function registerDocs(app: Hono<never>) {
  const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  app.get('/docs', (c) => c.html(page));
  app.get('/docs/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (!type) return c.notFound();
    return c.body(fs.readFileSync(path.join(dir, file)), 200, {
      'Content-Type': type,
      'Cache-Control': 'public, max-age=86400',
    });
  });
}
