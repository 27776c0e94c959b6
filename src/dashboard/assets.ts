import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/context.js';

/** The dashboard's stylesheet and script, in the package (assets/dashboard/), read once. */
const dir = fileURLToPath(new URL('../../assets/dashboard/', import.meta.url));
const TYPES = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
};
type AssetName = keyof typeof TYPES;

const files = new Map<AssetName, { body: string; version: string }>();
function asset(name: AssetName) {
  let file = files.get(name);
  if (!file) {
    const body = fs.readFileSync(dir + name, 'utf8');
    file = { body, version: crypto.createHash('sha256').update(body).digest('hex').slice(0, 12) };
    files.set(name, file);
  }
  return file;
}

/** The URL of an asset with its content's hash, so it can be cached for good. */
export const assetUrl = (name: AssetName) => `/assets/${name}?v=${asset(name).version}`;

export function registerAssets(app: Hono<AppEnv>): void {
  app.get('/assets/:name', (c) => {
    const name = c.req.param('name') as AssetName;
    if (!(name in TYPES)) return c.notFound();
    c.header('Content-Type', TYPES[name]);
    c.header('Cache-Control', 'public, max-age=31536000, immutable');
    return c.body(asset(name).body);
  });
}
