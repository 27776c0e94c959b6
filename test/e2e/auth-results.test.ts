// Engines: SQLite only: the SPF/DKIM/DMARC verdicts SMTP adds to a message, worked out before it is stored.
import crypto from 'node:crypto';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const dkimPublic = publicKey.replace(/-----[^-]+-----|\s/g, '');

/** The DNS the world would publish for these test domains. */
const TXT: Record<string, string[][]> = {
  'signed.test': [['v=spf1 ip4:127.0.0.1 -all']],
  // A long DKIM record, split into 255-byte strings as DNS does.
  'sel1._domainkey.signed.test': [[`v=DKIM1; k=rsa; p=${dkimPublic}`].flatMap((s) => s.match(/.{1,255}/g)!)],
  '_dmarc.signed.test': [['v=DMARC1; p=reject']],
  'strict.test': [['v=spf1 ip4:192.0.2.1 -all']],
  '_dmarc.strict.test': [['v=DMARC1; p=reject']],
  'relaxed.test': [['v=spf1 ip4:192.0.2.1 -all']],
  '_dmarc.relaxed.test': [['v=DMARC1; p=none']],
};

async function fakeResolver(name: string, rrtype: string): Promise<unknown> {
  const records = rrtype === 'TXT' ? TXT[name.toLowerCase()] : undefined;
  if (records) return records;
  const code = Object.keys(TXT).some((d) => name.toLowerCase().endsWith(d)) ? 'ENODATA' : 'ENOTFOUND';
  throw Object.assign(new Error(`${code} ${name} ${rrtype}`), { code });
}

interface AuthView {
  spf: string;
  dkim: { domain: string; result: string }[];
  dmarc: { result: string; policy: string | null; domain: string | null };
  header: string;
}

describe('SPF, DKIM and DMARC on inbound mail', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ verifyAuth: true, authResolver: fakeResolver });
  });
  afterAll(async () => server.stop());

  const find = async (subject: string, folder: string) => {
    const res = await server.api(`/emails?account=${server.inbox}&folder=${folder}&limit=100`);
    return (res.json.data.emails as { uid: number; subject: string; authResults: AuthView }[]).find(
      (e) => e.subject === subject,
    );
  };

  it('verifies a DKIM signature made with nodemailer, and shows the results as authResults', async () => {
    await server.sendMail({
      from: 'alice@signed.test',
      to: server.inbox,
      subject: 'Signed mail',
      text: 'This message carries a DKIM signature.',
      dkim: { domainName: 'signed.test', keySelector: 'sel1', privateKey },
    });
    const email = await find('Signed mail', 'INBOX');
    expect(email).toBeDefined();
    expect(email!.authResults).toMatchObject({
      spf: 'pass',
      dkim: [{ domain: 'signed.test', result: 'pass' }],
      dmarc: { result: 'pass', policy: 'reject', domain: 'signed.test' },
    });
    expect(email!.authResults.header).toMatch(/dkim=pass/);

    const read = await server.api(`/emails/${email!.uid}?account=${server.inbox}`);
    expect(read.json.data.email.authResults.dkim[0].result).toBe('pass');
  });

  it('does not pass a signature whose body was changed after signing', async () => {
    const info = await nodemailer.createTransport({ streamTransport: true, buffer: true }).sendMail({
      from: 'alice@signed.test',
      to: server.inbox,
      subject: 'Tampered',
      text: 'Original words',
      dkim: { domainName: 'signed.test', keySelector: 'sel1', privateKey },
    });
    const signed = (info.message as Buffer).toString();
    const tampered = signed.replace('Original words', 'Changed words');
    expect(tampered).not.toBe(signed);
    await server.sendRaw(tampered, { from: 'bounces@unrelated.test', to: [server.inbox] });
    const email = (await find('Tampered', 'Spam')) ?? (await find('Tampered', 'INBOX'));
    expect(email).toBeDefined();
    expect(email!.authResults.dkim[0]?.result).not.toBe('pass');
    expect(email!.authResults.dmarc.result).toBe('fail');
  });

  it('files a DMARC p=reject failure in Spam, never INBOX, and never drops it', async () => {
    await server.sendMail({
      from: 'ceo@strict.test',
      to: server.inbox,
      subject: 'Urgent wire transfer',
      text: 'Please pay this invoice today.',
    });
    expect(await find('Urgent wire transfer', 'INBOX')).toBeUndefined();
    const spam = await find('Urgent wire transfer', 'Spam');
    expect(spam).toBeDefined();
    expect(spam!.authResults).toMatchObject({
      spf: 'fail',
      dkim: [],
      dmarc: { result: 'fail', policy: 'reject', domain: 'strict.test' },
    });
    const read = await server.api(`/emails/${spam!.uid}?account=${server.inbox}&folder=Spam`);
    expect(read.status).toBe(200);
    expect(read.json.data.email.folder).toBe('Spam');
    const folders = (await server.api(`/folders?account=${server.inbox}`)).json.data.folders;
    expect(folders.find((f: { name: string }) => f.name === 'Spam').total).toBeGreaterThanOrEqual(1);
  });

  it('keeps a DMARC failure with p=none in INBOX', async () => {
    await server.sendMail({ from: 'news@relaxed.test', to: server.inbox, subject: 'Relaxed', text: 'x' });
    const email = await find('Relaxed', 'INBOX');
    expect(email?.authResults.dmarc).toMatchObject({ result: 'fail', policy: 'none' });
  });

  it('keeps mail from a domain with no records in INBOX, with none results', async () => {
    await server.sendMail({ from: 'someone@nowhere.test', to: server.inbox, subject: 'No DNS', text: 'x' });
    const email = await find('No DNS', 'INBOX');
    expect(email?.authResults).toMatchObject({ dkim: [], dmarc: { result: 'none' } });
    expect(['none', 'temperror', 'permerror', 'neutral']).toContain(email!.authResults.spf);
  });
});

describe('with MAILROOM_VERIFY_AUTH=false', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      env: { MAILROOM_VERIFY_AUTH: 'false' },
      verifyAuth: undefined,
      authResolver: () => Promise.reject(new Error('DNS must not be used')),
    });
  });
  afterAll(async () => server.stop());

  it('checks nothing, files into INBOX, and shows authResults null', async () => {
    expect(server.mailroom.config.verifyAuth).toBe(false);
    await server.sendMail({ from: 'ceo@strict.test', to: server.inbox, subject: 'Unchecked', text: 'x' });
    const emails = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails;
    expect(emails).toEqual([expect.objectContaining({ subject: 'Unchecked', authResults: null })]);
  });
});
