// Engines: SQLite only: finding IMAP and SMTP servers for an address, a protocol rule.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemDns } from '../../src/mailbox/connect/autodiscover.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { DnsServer, Zone } from '../helpers/dns-server.js';
import { startDnsServer } from '../helpers/dns-server.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { startDovecot } from '../helpers/dovecot.js';
import { ADMIN_TOKEN, FAST_IMAP } from '../helpers/imap-setup.js';
import type { TestServer } from '../helpers/server.js';
import { startServer } from '../helpers/server.js';

// Autodiscovery from the address alone (issue 17): other domains' DNS and web servers cannot be
// reached here, so a local DNS server (UDP on loopback) and a local HTTP server stand in for
// them. The discovered servers point at a local Dovecot and SMTP server.
describe('connecting a mailbox from its address alone', { timeout: 60_000 }, () => {
  let dovecot: Dovecot;
  let capture: CaptureServer;
  let dns: DnsServer;
  let web: http.Server;
  let server: TestServer;
  /** Documents the web server holds, by `host/path`; everything else is 404. */
  const documents = new Map<string, string>();
  const fetched: string[] = [];

  const autoconfig = (imapPort: number, smtpPort: number) => `<?xml version="1.0"?>
<clientConfig version="1.1">
  <emailProvider id="example">
    <incomingServer type="pop3"><hostname>pop.invalid</hostname><port>995</port><socketType>SSL</socketType></incomingServer>
    <incomingServer type="imap">
      <hostname>127.0.0.1</hostname><port>${imapPort}</port><socketType>plain</socketType>
      <username>%EMAILADDRESS%</username><authentication>password-cleartext</authentication>
    </incomingServer>
    <outgoingServer type="smtp">
      <hostname>127.0.0.1</hostname><port>${smtpPort}</port><socketType>plain</socketType>
      <username>%EMAILADDRESS%</username>
    </outgoingServer>
  </emailProvider>
</clientConfig>`;

  beforeAll(async () => {
    dovecot = await startDovecot();
    for (const address of ['ann@alpha.test', 'bob@beta.test', 'cat@gamma.test'])
      dovecot.addUser(address, 'pw-' + address);
    capture = await startCaptureServer();
    const smtpPort = Number(new URL(capture.url).port);
    documents.set('autoconfig.alpha.test/mail/config-v1.1.xml', autoconfig(dovecot.port, smtpPort));
    documents.set(
      'beta.test/.well-known/autoconfig/mail/config-v1.1.xml',
      autoconfig(dovecot.port, smtpPort),
    );
    web = http.createServer((req, res) => {
      const asked = (req.url ?? '').slice(1).split('?')[0]!;
      fetched.push(asked);
      const doc = documents.get(asked);
      res.writeHead(doc ? 200 : 404, { 'content-type': 'application/xml' });
      res.end(doc ?? 'not here');
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const webPort = (web.address() as AddressInfo).port;
    // SRV targets are host names the IMAP client must reach: 127.0.0.1 written as a name.
    const srv = (port: number) => [
      { type: 'SRV' as const, name: '', data: { priority: 0, weight: 1, port, target: '127.0.0.1' } },
    ];
    const zone: Zone = {
      '_imap._tcp.gamma.test': srv(dovecot.port),
      '_submission._tcp.gamma.test': srv(smtpPort),
      '_imaps._tcp.gamma.test': [
        { type: 'SRV', name: '', data: { priority: 0, weight: 0, port: 0, target: '.' } },
      ],
      'imap.delta.test': [{ type: 'A', name: '', data: '127.0.0.1' }],
      'mail.delta.test': [{ type: 'A', name: '', data: '127.0.0.1' }],
    };
    dns = await startDnsServer(zone);
    server = await startServer({
      adminToken: ADMIN_TOKEN,
      imapOptions: FAST_IMAP,
      lookups: {
        dns: systemDns([dns.address]),
        // https://host/path is asked of the local web server as http://127.0.0.1:port/host/path.
        fetch: (url, init) => {
          const u = new URL(url);
          return fetch(`http://127.0.0.1:${webPort}/${u.host}${u.pathname}${u.search}`, init);
        },
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((r) => web?.close(r));
    await dns?.close();
    await capture?.close();
    await dovecot?.stop();
  });

  const connect = async (address: string) =>
    server.api('/admin/v1/inboxes', {
      key: ADMIN_TOKEN,
      body: { address, user: 'default', password: 'pw-' + address },
    });

  it('reads the autoconfig document at autoconfig.<domain>', async () => {
    const res = await connect('ann@alpha.test');
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.servers).toMatchObject({
      imap: `imap://ann%40alpha.test@127.0.0.1:${dovecot.port}`,
      auth: 'password',
      source: 'the autoconfig document at https://autoconfig.alpha.test/mail/config-v1.1.xml',
    });
    expect(res.json.data.servers.tried).toBeUndefined();
  });

  it('then the one under /.well-known on the domain itself, saying what answered nothing first', async () => {
    const res = await connect('bob@beta.test');
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.servers.source).toBe(
      'the autoconfig document at https://beta.test/.well-known/autoconfig/mail/config-v1.1.xml',
    );
    expect(res.json.data.servers.tried).toEqual([
      'https://autoconfig.beta.test/mail/config-v1.1.xml: HTTP 404',
    ]);
  });

  it('then RFC 6186 SRV records (a "." target means not offered)', async () => {
    const res = await connect('cat@gamma.test');
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.servers).toMatchObject({
      imap: `imap://cat%40gamma.test@127.0.0.1:${dovecot.port}`,
      smtp: `smtp://cat%40gamma.test@127.0.0.1:${new URL(capture.url).port}`,
      source: 'the SRV records of gamma.test (RFC 6186)',
    });
    expect(dns.asked).toEqual(
      expect.arrayContaining(['SRV _imaps._tcp.gamma.test', 'SRV _imap._tcp.gamma.test']),
    );
  });

  it('then common host names, telling where the guess came from when it does not answer', async () => {
    const res = await connect('dan@delta.test');
    expect(res.status).toBe(422);
    expect(res.json.error.message).toContain('cannot reach the IMAP server imap.delta.test:993');
    expect(res.json.error.message).toContain(
      'from the common host names imap.delta.test and mail.delta.test',
    );
    expect(await server.mailroom.deps.store.inboxes.findByAddress('dan@delta.test')).toBeUndefined();
  });

  it('answers 422 listing everything tried when nothing is found', async () => {
    const res = await connect('eve@epsilon.test');
    expect(res.status).toBe(422);
    const message = res.json.error.message as string;
    expect(message).toContain('no IMAP and SMTP servers found for epsilon.test');
    expect(message).toContain('https://autoconfig.epsilon.test/mail/config-v1.1.xml: HTTP 404');
    expect(message).toContain('https://epsilon.test/.well-known/autoconfig/mail/config-v1.1.xml: HTTP 404');
    expect(message).toContain('SRV records');
    expect(message).toContain('host names imap.epsilon.test');
  });
});
