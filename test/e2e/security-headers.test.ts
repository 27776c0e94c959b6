// Engines: SQLite only: security headers, an HTTP door rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('security headers', () => {
  let server: TestServer;
  let uid: number;
  beforeAll(async () => {
    server = await startServer();
    await server.sendMail({
      from: 'alice@example.com',
      to: server.inbox,
      subject: 'Looks like a page',
      html: '<html><body><script>alert(1)</script></body></html>',
      attachments: [
        { filename: 'page.html', content: '<script>alert(2)</script>', contentType: 'text/html' },
      ],
    });
    uid = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails[0].uid;
  });
  afterAll(async () => server.stop());

  it('sends nosniff and a no-script policy with raw messages, attachments, JSON and errors', async () => {
    const email = (await server.api(`/emails/${uid}?account=${server.inbox}`)).json.data.email;
    const responses = {
      raw: await server.api(`/emails/${uid}/raw?account=${server.inbox}`),
      attachment: await server.api(
        `/emails/${uid}/attachments/${email.attachments[0].id}?account=${server.inbox}`,
      ),
      json: await server.api(`/emails/${uid}?account=${server.inbox}`),
      unauthorized: await server.api('/accounts', { key: null }),
      notFound: await server.api('/nowhere'),
      health: await server.api('/healthz'),
    };
    expect(responses.raw.status).toBe(200);
    expect(responses.attachment.status).toBe(200);
    for (const [name, res] of Object.entries(responses)) {
      expect(res.headers.get('x-content-type-options'), name).toBe('nosniff');
      expect(res.headers.get('content-security-policy'), name).toMatch(/default-src 'none'.*sandbox/);
    }
  });

  it('gives /docs a policy under which its own script, styles and spec still load', async () => {
    const res = await fetch(`${server.baseUrl}/docs`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp.split(';').map((d) => {
        const [name = '', ...values] = d.trim().split(/\s+/);
        return [name, values];
      }),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toContain("'self'");
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);

    const html = await res.text();
    // 'self' allows no inline script: every script of the page must be a file of this server.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\/[^/]/);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+=/i);

    const assets = [
      ...scripts.map(([, attributes]) => /src="([^"]+)"/.exec(attributes!)![1]!),
      ...[...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!),
    ];
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    const bodies: string[] = [];
    for (const asset of assets) {
      const got = await fetch(`${server.baseUrl}${asset}`);
      expect(got.status, asset).toBe(200);
      const type = asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/;
      expect(got.headers.get('content-type'), asset).toMatch(type);
      bodies.push(await got.text());
    }
    // One of the page's own scripts starts Swagger UI.
    expect(bodies.some((body) => body.includes('SwaggerUIBundle({'))).toBe(true);

    // The spec the page names is fetched from this origin (connect-src 'self').
    const spec = /data-spec="([^"]+)"/.exec(html)![1]!;
    expect(spec.startsWith('/')).toBe(true);
    expect((await fetch(`${server.baseUrl}${spec}`)).status).toBe(200);
  });
});
