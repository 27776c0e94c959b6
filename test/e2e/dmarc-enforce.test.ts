// Engines: SQLite only: the SMTP door's answer to a DMARC failure, decided before anything is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp } from '../helpers/smtp-session.js';

/** What these test domains publish: SPF that never allows 127.0.0.1, and a DMARC policy each. */
const TXT: Record<string, string[][]> = {
  'strict.test': [['v=spf1 ip4:192.0.2.1 -all']],
  '_dmarc.strict.test': [['v=DMARC1; p=reject']],
  'careful.test': [['v=spf1 ip4:192.0.2.1 -all']],
  '_dmarc.careful.test': [['v=DMARC1; p=quarantine']],
};

async function fakeResolver(name: string, rrtype: string): Promise<unknown> {
  const records = rrtype === 'TXT' ? TXT[name.toLowerCase()] : undefined;
  if (records) return records;
  const code = Object.keys(TXT).some((d) => name.toLowerCase().endsWith(d)) ? 'ENODATA' : 'ENOTFOUND';
  throw Object.assign(new Error(`${code} ${name} ${rrtype}`), { code });
}

const forged = (domain: string, subject: string) =>
  [
    `From: CEO <ceo@${domain}>`,
    'To: owner@mailroom.test',
    `Subject: ${subject}`,
    '',
    'Wire the money.',
    '',
  ].join('\r\n');

describe('DMARC enforcement (MAILROOM_DMARC_ENFORCE)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ verifyAuth: true, authResolver: fakeResolver });
  });
  afterAll(async () => server.stop());

  const send = async (domain: string, subject: string) => {
    const smtp = await openSmtp(server.mailroom.smtp.port);
    try {
      return (await smtp.send(`ceo@${domain}`, [server.inbox], forged(domain, subject))).data!;
    } finally {
      await smtp.close();
    }
  };
  const folderOf = async (subject: string) => {
    for (const folder of ['INBOX', 'Spam']) {
      const res = await server.api(`/emails?account=${server.inbox}&folder=${folder}&limit=100`);
      if ((res.json.data.emails as { subject: string }[]).some((e) => e.subject === subject)) return folder;
    }
    return null;
  };

  it('off (the default): a p=reject failure goes to Spam, a p=quarantine failure to INBOX', async () => {
    expect((await send('strict.test', 'Unenforced reject')).code).toBe(250);
    expect(await folderOf('Unenforced reject')).toBe('Spam');
    expect((await send('careful.test', 'Unenforced quarantine')).code).toBe(250);
    expect(await folderOf('Unenforced quarantine')).toBe('INBOX');
  });

  it('on: a p=reject failure is refused with 550 5.7.1 and not stored; p=quarantine goes to Spam', async () => {
    await server.restart(undefined, { dmarcEnforce: true });
    const refused = await send('strict.test', 'Enforced reject');
    expect(refused.code).toBe(550);
    expect(refused.text).toMatch(/^5\.7\.1 .*DMARC.*strict\.test/);
    expect(await folderOf('Enforced reject')).toBeNull();

    expect((await send('careful.test', 'Enforced quarantine')).code).toBe(250);
    expect(await folderOf('Enforced quarantine')).toBe('Spam');

    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^mailroom_screening_total\{outcome="rejected"\} 1$/m);
  });
});
