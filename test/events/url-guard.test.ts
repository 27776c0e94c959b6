import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, parseWebhookUrl, webhookReach } from '../../src/events/url-guard.js';
import { bindsLoopbackOnly, isLoopbackAddress, isPublicAddress } from '../../src/net/address-ranges.js';

const noLookup = async (host: string): Promise<string[]> => {
  throw new Error(`unexpected lookup of ${host}`);
};
const strict = { reach: 'public' as const, resolve: noLookup };
const loopbackOnly = { reach: 'public-or-loopback' as const, resolve: noLookup };

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    '169.254.169.254',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '198.18.0.1',
    '198.19.255.255',
    '198.51.100.7',
    '203.0.113.9',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fc00::1',
    'fd00::1',
    'ff02::1',
    '2001:db8::1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::7f00:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:10.0.0.1',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:0:10.0.0.1',
    '2002:7f00:1::1',
    '2002:c0a8:101::1',
    '[::1]',
    'not-an-ip',
    '',
    '0177.0.0.1',
  ])('%s is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '198.20.0.1',
    '2606:2800:220:1:248:1893:25c8:1946',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ])('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});

describe('parseWebhookUrl', () => {
  it('accepts http and https URLs', () => {
    const r = parseWebhookUrl('https://hooks.example.com/x?y=1');
    expect(r.ok && r.url.href).toBe('https://hooks.example.com/x?y=1');
    expect(parseWebhookUrl('http://example.com').ok).toBe(true);
  });

  it.each([
    ['ftp://example.com/', 'http or https'],
    ['file:///etc/passwd', 'http or https'],
    ['javascript:alert(1)', 'http or https'],
    ['http://user:pw@example.com/', 'credentials'],
    ['http://user@example.com/', 'credentials'],
    ['not a url', 'not a valid URL'],
    ['', 'not a valid URL'],
    [`https://example.com/${'a'.repeat(2048)}`, 'longer than 2048'],
  ])('refuses %s', (input, reason) => {
    const r = parseWebhookUrl(input);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(reason);
  });

  it('accepts a URL of exactly 2048 characters', () => {
    const base = 'https://example.com/';
    expect(parseWebhookUrl(base + 'a'.repeat(2048 - base.length)).ok).toBe(true);
  });
});

describe('checkWebhookUrl', () => {
  it('WHATWG URL normalises numeric IPv4 forms to dotted quads', () => {
    for (const u of [
      'http://2130706433/',
      'http://0x7f000001/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://127.1/',
    ]) {
      expect(new URL(u).hostname).toBe('127.0.0.1');
    }
    expect(new URL('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });

  it.each([
    'http://127.0.0.1/',
    'http://127.0.0.1./',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://0.0.0.0/',
    'http://0/',
    'http://[::]/',
    'http://224.0.0.1/',
    'http://100.64.0.1/',
  ])('refuses the IP literal in %s', async (input) => {
    const r = await checkWebhookUrl(input, strict);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/private address \(.+\); MAILROOM_WEBHOOK_ALLOW_PRIVATE=true/);
  });

  it.each(['http://localhost/', 'http://LOCALHOST:8080/', 'http://foo.localhost/', 'http://localhost./'])(
    'refuses %s without a lookup',
    async (input) => {
      const r = await checkWebhookUrl(input, strict);
      expect(r).toEqual({
        ok: false,
        reason: 'webhook URL points to localhost; MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets',
      });
    },
  );

  it.each(['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'http://user:pw@example.com/'])(
    'refuses %s before any lookup',
    async (input) => {
      expect((await checkWebhookUrl(input, strict)).ok).toBe(false);
    },
  );

  it('refuses a name resolving to a private address without telling the caller the address', async () => {
    const r = await checkWebhookUrl('https://internal.example.com/hook', {
      reach: 'public',
      resolve: async () => ['10.0.0.1'],
    });
    // The address is for the server log only.
    expect(r).toEqual({
      ok: false,
      reason:
        'webhook URL resolves to a non-public address; MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets',
      address: '10.0.0.1',
    });
  });

  it('refuses a name with one public and one private address', async () => {
    const r = await checkWebhookUrl('https://mixed.example.com/', {
      reach: 'public',
      resolve: async () => ['93.184.216.34', '::ffff:192.168.0.1'],
    });
    expect(r).toEqual({
      ok: false,
      reason:
        'webhook URL resolves to a non-public address; MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets',
      address: '::ffff:192.168.0.1',
    });
  });

  it('refuses a name that does not resolve or resolves to nothing', async () => {
    const failing = await checkWebhookUrl('https://nx.example.com/', {
      reach: 'public',
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    expect(!failing.ok && failing.reason).toBe('webhook URL host could not be resolved (nx.example.com)');
    const empty = await checkWebhookUrl('https://empty.example.com/', {
      reach: 'public',
      resolve: async () => [],
    });
    expect(empty.ok).toBe(false);
  });

  it('allows a public IP literal without a lookup', async () => {
    const r = await checkWebhookUrl('https://93.184.216.34/hook', strict);
    expect(r.ok && r.url.href).toBe('https://93.184.216.34/hook');
  });

  it('allows a name resolving only to public addresses and passes it the hostname', async () => {
    const asked: string[] = [];
    const r = await checkWebhookUrl('https://Hooks.Example.com:8443/in', {
      reach: 'public',
      resolve: async (host) => {
        asked.push(host);
        return ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'];
      },
    });
    expect(r.ok).toBe(true);
    expect(asked).toEqual(['hooks.example.com']);
  });

  it('allows every private target with MAILROOM_WEBHOOK_ALLOW_PRIVATE, without a lookup', async () => {
    for (const input of [
      'http://127.0.0.1:3000/hook',
      'http://localhost/',
      'http://[::1]/',
      'http://10.1.2.3/',
      'http://internal.example.com/',
    ]) {
      expect((await checkWebhookUrl(input, { reach: 'any', resolve: noLookup })).ok).toBe(true);
    }
  });

  it('still refuses unparseable URLs with MAILROOM_WEBHOOK_ALLOW_PRIVATE', async () => {
    expect((await checkWebhookUrl('ftp://127.0.0.1/', { reach: 'any' })).ok).toBe(false);
    expect((await checkWebhookUrl('http://a:b@127.0.0.1/', { reach: 'any' })).ok).toBe(false);
  });
});

describe('loopback targets while the server listens on loopback only', () => {
  it.each(['127.0.0.1', '127.0.0.53', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:ffff:7f00:1'])(
    '%s is loopback',
    (ip) => expect(isLoopbackAddress(ip)).toBe(true),
  );
  it.each(['10.0.0.1', '0.0.0.0', '::', '::2', '::127.0.0.1', 'fe80::1', '8.8.8.8', 'localhost', ''])(
    '%s is not loopback',
    (ip) => expect(isLoopbackAddress(ip)).toBe(false),
  );

  it('knows a loopback-only bind address from one other machines reach', () => {
    for (const host of ['127.0.0.1', '::1', '[::1]', 'localhost', '127.0.0.2'])
      expect(bindsLoopbackOnly(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'mail.example.com'])
      expect(bindsLoopbackOnly(host), host).toBe(false);
    expect(webhookReach({ webhookAllowPrivate: false, host: '127.0.0.1' })).toBe('public-or-loopback');
    expect(webhookReach({ webhookAllowPrivate: false, host: '0.0.0.0' })).toBe('public');
    expect(webhookReach({ webhookAllowPrivate: true, host: '0.0.0.0' })).toBe('any');
  });

  it.each(['http://127.0.0.1:8080/hook', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://127.1/'])(
    'allows %s without a lookup',
    async (input) => {
      expect((await checkWebhookUrl(input, loopbackOnly)).ok).toBe(true);
    },
  );

  it('allows localhost names that resolve to loopback', async () => {
    const r = await checkWebhookUrl('http://localhost:8080/', {
      ...loopbackOnly,
      resolve: async () => ['::1'],
    });
    expect(r.ok).toBe(true);
  });

  it.each([
    'http://10.1.2.3/',
    'http://192.168.1.1/',
    'http://169.254.169.254/',
    'http://0.0.0.0/',
    'http://[fd00::1]/',
  ])('still refuses %s, naming the setting', async (input) => {
    const r = await checkWebhookUrl(input, loopbackOnly);
    expect(!r.ok && r.reason).toMatch(/private address \(.+\); MAILROOM_WEBHOOK_ALLOW_PRIVATE=true/);
  });

  it('refuses a name with a loopback and a private address', async () => {
    const r = await checkWebhookUrl('http://both.example.com/', {
      ...loopbackOnly,
      resolve: async () => ['127.0.0.1', '10.0.0.7'],
    });
    expect(r).toEqual({
      ok: false,
      reason:
        'webhook URL resolves to a non-public address; MAILROOM_WEBHOOK_ALLOW_PRIVATE=true allows private targets',
      address: '10.0.0.7',
    });
  });
});
