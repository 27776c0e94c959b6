import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookHeaders } from '../../src/events/signing.js';
import { createMailroom } from '../../src/mailroom.js';
import type { Mailroom } from '../../src/mailroom.js';
import { mailroom as cli } from '../helpers/cli.js';

const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const { version } = JSON.parse(read('package.json')) as { version: string };

/** One version, package.json's, wherever Mailroom reports one; CHANGELOG.md says what it holds. */
describe('the version', () => {
  let server: Mailroom;
  let key: string;
  const base = () => `http://127.0.0.1:${server.http.port}`;
  beforeAll(async () => {
    server = createMailroom({
      env: {},
      memory: true,
      httpPort: 0,
      smtpPort: 0,
      logLevel: 'silent',
      adminToken: 'admin-token-of-the-version-test',
    });
    await server.start();
    key = server.bootstrap!.apiKey;
  });
  afterAll(async () => server?.stop());

  it('is package.json’s in both OpenAPI documents, mailroom --version, MCP’s serverInfo and the webhook User-Agent', async () => {
    const api = (await (await fetch(`${base()}/api/v1/openapi.json`)).json()) as {
      info: { version: string };
    };
    const admin = (await (
      await fetch(`${base()}/admin/v1/openapi.json`, {
        headers: { authorization: 'Bearer admin-token-of-the-version-test' },
      })
    ).json()) as { info: { version: string } };

    const client = new Client({ name: 'version-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    const serverInfo = client.getServerVersion();
    await client.close();

    const printed = await cli(['--version'], {});
    expect(printed.code).toBe(0);

    expect({
      openapi: api.info.version,
      adminOpenapi: admin.info.version,
      cli: printed.stdout.trim(),
      mcp: serverInfo,
      webhookUserAgent: webhookHeaders('whsec_AAAA', 'msg_1', '{}')['user-agent'],
    }).toEqual({
      openapi: version,
      adminOpenapi: version,
      cli: version,
      mcp: { name: 'mailroom', version },
      webhookUserAgent: `Mailroom-Webhooks/${version}`,
    });
  });

  it('has its entry in CHANGELOG.md, with upgrade notes, below an Unreleased section', () => {
    const changelog = read('CHANGELOG.md');
    const headings = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map(
      (m) => m[1],
    );
    expect(headings[0]).toBe('Unreleased');
    expect(headings).toContain(version);
    const entry = changelog.slice(changelog.indexOf(`## [${version}]`)).split(/^## \[/m)[1]!;
    expect(entry).toMatch(/^### Upgrade notes$/m);
  });
});
