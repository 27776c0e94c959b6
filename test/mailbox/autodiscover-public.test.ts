import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AutoconfigDns } from '../../src/mailbox/connect/autodiscover.js';
import { NothingDiscovered, discoverServers } from '../../src/mailbox/connect/autodiscover.js';
import type { FetchLike } from '../../src/mailbox/connect/oauth2.js';

// A user connecting by address alone names the domain whose autoconfig server is asked: for
// them (publicOnly) each host, redirects included, must be on a public address before it is asked.
describe('autodiscovery for a user reads autoconfig documents on public addresses only', () => {
  let web: http.Server;
  /** `host/path` of every request the web server got. */
  const asked: string[] = [];
  let fetchVia: FetchLike;
  const doc = `<?xml version="1.0"?><clientConfig version="1.1"><emailProvider id="x">
    <incomingServer type="imap"><hostname>imap.public.test</hostname><port>993</port><socketType>SSL</socketType>
      <username>%EMAILADDRESS%</username></incomingServer>
    <outgoingServer type="smtp"><hostname>smtp.public.test</hostname><port>465</port><socketType>SSL</socketType>
      <username>%EMAILADDRESS%</username></outgoingServer></emailProvider></clientConfig>`;
  /** What the public internet's DNS would answer. */
  const addresses: Record<string, string[]> = {
    'autoconfig.inside.test': ['10.0.0.9'],
    'autoconfig.moved.test': ['93.184.215.14'],
    'metadata.inside.test': ['169.254.169.254'],
    'autoconfig.fine.test': ['93.184.215.15'],
    'docs.fine.test': ['93.184.215.16'],
  };
  const resolve = async (host: string) => {
    const found = addresses[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };
  const noDns: AutoconfigDns = { resolveSrv: async () => [], exists: async () => false };

  beforeAll(async () => {
    web = http.createServer((req, res) => {
      const [host, path] = [req.headers['x-host'] as string, (req.url ?? '').split('?')[0]];
      asked.push(`${host}${path}`);
      if (host === 'autoconfig.moved.test') {
        res.writeHead(302, { location: 'https://metadata.inside.test/latest/meta-data' }).end();
      } else if (host === 'autoconfig.fine.test') {
        res.writeHead(301, { location: 'https://docs.fine.test/config.xml' }).end();
      } else {
        res.writeHead(200, { 'content-type': 'application/xml' }).end(doc);
      }
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    const port = (web.address() as AddressInfo).port;
    // Every https://host/path is asked of the local web server, the host in a header.
    fetchVia = (url, init) => {
      const u = new URL(url);
      return fetch(`http://127.0.0.1:${port}${u.pathname}${u.search}`, {
        ...init,
        headers: { 'x-host': u.host },
      });
    };
  });
  afterAll(() => new Promise((r) => web.close(r)));

  const discover = (address: string, publicOnly = true) =>
    discoverServers(address, { dns: noDns, fetch: fetchVia }, publicOnly ? resolve : undefined).catch(
      (error: unknown) => error as NothingDiscovered,
    );

  it('does not ask a host on a private address', async () => {
    const result = await discover('ann@inside.test');
    expect(result).toBeInstanceOf(NothingDiscovered);
    expect((result as NothingDiscovered).tried[0]).toBe(
      'https://autoconfig.inside.test/mail/config-v1.1.xml: not on a public address',
    );
    expect(asked.filter((a) => a.startsWith('autoconfig.inside.test'))).toEqual([]);
  });

  it('does not follow a redirect to a private address', async () => {
    const result = await discover('bob@moved.test');
    expect(result).toBeInstanceOf(NothingDiscovered);
    expect((result as NothingDiscovered).tried[0]).toBe(
      'https://autoconfig.moved.test/mail/config-v1.1.xml: not on a public address',
    );
    expect(asked).toContain('autoconfig.moved.test/mail/config-v1.1.xml');
    expect(asked.filter((a) => a.startsWith('metadata.inside.test'))).toEqual([]);
  });

  it('follows a redirect to a public address and reads the document there', async () => {
    const found = await discover('cat@fine.test');
    expect(found).not.toBeInstanceOf(NothingDiscovered);
    expect(asked).toContain('docs.fine.test/config.xml');
  });

  it('asks any host for an operator', async () => {
    await discover('dan@inside.test', false);
    expect(asked).toContain('autoconfig.inside.test/mail/config-v1.1.xml');
  });
});
