import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Context, Hono } from 'hono';
import type { AppEnv } from '../context.js';

const require = createRequire(import.meta.url);
/** Files served from swagger-ui-dist, by name. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** The page's own start script, served as a file so the policy needs no inline script. */
const INIT_SCRIPT = `const ui = document.getElementById('ui');
window.ui = SwaggerUIBundle({ url: ui.dataset.spec, domNode: ui, persistAuthorization: true, validatorUrl: null });
`;

/**
 * Everything the page uses comes from this server: no inline script, no eval (Swagger UI needs
 * neither). Styles allow 'unsafe-inline' because Swagger UI's components may set inline styles;
 * data: images are its icons. A bearer key typed into the page can only be sent to this origin.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mailroom API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui" data-spec="/api/v1/openapi.json"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body></html>`;

/** An interactive API reference served from the swagger-ui-dist package: works offline. */
export function registerDocs(app: Hono<AppEnv>) {
  const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const docsPage = (c: Context) => c.html(page, 200, { 'Content-Security-Policy': DOCS_CSP });
  app.get('/docs', docsPage);
  app.get('/docs/', docsPage);
  app.get('/docs/assets/init.js', (c) =>
    c.body(INIT_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }),
  );
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
