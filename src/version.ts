import fs from 'node:fs';

/**
 * The release, read from package.json: the one version the OpenAPI documents, `mailroom
 * --version`, the MCP server and the webhook User-Agent report (CHANGELOG.md has its entry).
 * package.json sits one folder above this file in src/, dist/ and the tests' build alike.
 */
export const VERSION = (
  JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
