import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import { Conflict, NotFound, ValidationFailed } from '../../src/mailbox/errors.js';
import {
  addDomain,
  addLocalInbox,
  addUser,
  createKey,
  dnsRecordsFor,
  domainView,
  listDomains,
  listInboxes,
  listKeys,
  listUsers,
  removeDomain,
  removeInbox,
  removeUser,
  revokeKey,
} from '../../src/mailbox/operations/admin.js';
import { authenticateKey } from '../../src/mailbox/operations/key-auth.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

// What the admin verbs keep and refuse. The admin API as HTTP (the token, status codes, the
// answers, and SMTP's 550 after a removal) is test/e2e/admin-api.test.ts.
describe('domains, users, inboxes and keys', () => {
  let box: InProcess;
  beforeAll(async () => {
    box = await inProcessInbox('agent@mailroom.test');
  });
  afterAll(async () => box?.close());

  it('adds a domain, normalised, with the MX, SPF, DKIM and DMARC records to publish, and refuses a duplicate or a non-domain', async () => {
    const view = domainView(await addDomain(box.deps, 'Team.Example'), 'mx.mailroom.test');
    expect(view).toMatchObject({ name: 'team.example', created_at: expect.any(String) });
    const records = view.dnsRecords;
    expect(records.find((r) => r.type === 'MX')).toMatchObject({ name: 'team.example' });
    expect(records.find((r) => r.value.startsWith('v=spf1'))).toMatchObject({
      type: 'TXT',
      name: 'team.example',
    });
    expect(records.find((r) => r.value.startsWith('v=DKIM1'))).toMatchObject({
      type: 'TXT',
      name: expect.stringMatching(/^[\w-]+\._domainkey\.team\.example$/),
      value: expect.stringMatching(/; p=[A-Za-z0-9+/]+=*$/),
    });
    expect(records.find((r) => r.value.startsWith('v=DMARC1'))).toMatchObject({
      type: 'TXT',
      name: '_dmarc.team.example',
    });
    expect(JSON.stringify(view)).not.toContain('PRIVATE KEY');
    expect((await listDomains(box.deps)).map((d) => d.name)).toContain('team.example');

    expect(await refusal(addDomain(box.deps, 'team.example'))).toBeInstanceOf(Conflict);
    expect(await refusal(addDomain(box.deps, 'not a domain'))).toBeInstanceOf(ValidationFailed);
  });

  it('keeps a DKIM key given for a domain, under its selector, and refuses one DKIM cannot sign with', async () => {
    const rsa = (bits: number) =>
      crypto.generateKeyPairSync('rsa', {
        modulusLength: bits,
        publicKeyEncoding: { type: 'spki', format: 'der' },
        privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      });
    const moved = rsa(1024);
    const row = await addDomain(box.deps, 'moved.example', undefined, {
      privateKey: moved.privateKey,
      selector: 'legacy2019',
    });
    const dkim = dnsRecordsFor(row, 'mx.mailroom.test').find((r) => r.value.startsWith('v=DKIM1'));
    expect(dkim).toMatchObject({
      name: 'legacy2019._domainkey.moved.example',
      value: `v=DKIM1; k=rsa; p=${moved.publicKey.toString('base64')}`,
    });
    const ed25519 = crypto.generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
    for (const privateKey of [rsa(512).privateKey, ed25519.toString(), 'not a key'])
      expect(await refusal(addDomain(box.deps, 'refused.example', undefined, { privateKey }))).toBeInstanceOf(
        ValidationFailed,
      );
    expect(await box.deps.store.domains.find('refused.example')).toBeUndefined();
  });

  it('sets up a team: user, inbox, key; mail arrives and the key reads it, and lists never show the key', async () => {
    const user = await addUser(box.deps, 'support');
    expect(user).toMatchObject({ id: expect.any(Number), name: 'support' });
    const inbox = await addLocalInbox(box.deps, 'Help@team.example', 'support', 'Help desk');
    expect(inbox).toMatchObject({ address: 'help@team.example', kind: 'local', display_name: 'Help desk' });
    const made = await createKey(box.deps, user.id, { name: 'bot' });
    expect(made.key.startsWith(made.row.prefix)).toBe(true);

    await box.deliver(
      { from: 'customer@example.com', to: inbox.address, subject: 'Help!', text: 'x' },
      { to: [inbox] },
    );
    const caller = (await authenticateKey(box.deps, made.key))!;
    const emails = await listEmails(
      box.deps,
      caller,
      ListEmailsQuery.parse({ account: 'help@team.example' }),
    );
    expect(emails.emails.map((e) => e.subject)).toEqual(['Help!']);

    const keys = await listKeys(box.deps, user.id);
    expect(keys).toEqual([
      expect.objectContaining({ id: made.row.id, prefix: made.row.prefix, name: 'bot' }),
    ]);
    expect(JSON.stringify(keys)).not.toContain(made.key);
    expect((await listInboxes(box.deps, 'support')).map((i) => i.address)).toEqual(['help@team.example']);
    expect((await listUsers(box.deps)).map((u) => u.name)).toContain('support');
  });

  it('revokes a key: it opens nothing afterwards, and a second revoke is not found', async () => {
    const made = await createKey(box.deps, 'owner');
    expect(await authenticateKey(box.deps, made.key)).toBeDefined();
    await revokeKey(box.deps, made.row.id);
    expect(await authenticateKey(box.deps, made.key)).toBeUndefined();
    expect(await refusal(revokeKey(box.deps, made.row.id))).toBeInstanceOf(NotFound);
  });

  it('refuses inboxes, users and keys that cannot exist', async () => {
    for (const address of ['x@not-hosted.example', 'not-an-address', 'tagged+x@mailroom.test'])
      expect(await refusal(addLocalInbox(box.deps, address, 'owner')), address).toBeInstanceOf(
        ValidationFailed,
      );
    expect(await refusal(addLocalInbox(box.deps, 'AGENT@mailroom.test', 'owner'))).toBeInstanceOf(Conflict);
    expect(await refusal(addLocalInbox(box.deps, 'new@mailroom.test', 'ghost'))).toBeInstanceOf(NotFound);
    expect(await refusal(addUser(box.deps, 'owner'))).toBeInstanceOf(Conflict);
    expect(await refusal(addUser(box.deps, 'bad name!'))).toBeInstanceOf(ValidationFailed);
    expect(await refusal(createKey(box.deps, 'ghost'))).toBeInstanceOf(NotFound);
  });

  it('removes a domain only once it has no inboxes, and each thing only once', async () => {
    await addDomain(box.deps, 'gone.example');
    await addLocalInbox(box.deps, 'desk@gone.example', 'owner');
    expect(await refusal(removeDomain(box.deps, 'gone.example'))).toBeInstanceOf(Conflict);
    await removeInbox(box.deps, 'desk@gone.example');
    expect(await box.deps.store.inboxes.findByAddress('desk@gone.example')).toBeUndefined();
    expect(await refusal(removeInbox(box.deps, 'desk@gone.example'))).toBeInstanceOf(NotFound);
    await removeDomain(box.deps, 'gone.example');
    expect((await listDomains(box.deps)).map((d) => d.name)).not.toContain('gone.example');
    expect(await refusal(removeDomain(box.deps, 'gone.example'))).toBeInstanceOf(NotFound);
  });

  it('removes a user with its keys and inboxes', async () => {
    const user = await addUser(box.deps, 'temp');
    await addLocalInbox(box.deps, 'temp@mailroom.test', 'temp');
    const { key } = await createKey(box.deps, 'temp');
    await removeUser(box.deps, user.id);
    expect(await authenticateKey(box.deps, key)).toBeUndefined();
    expect(await box.deps.store.inboxes.findByAddress('temp@mailroom.test')).toBeUndefined();
    expect(await refusal(removeUser(box.deps, user.id))).toBeInstanceOf(NotFound);
  });
});
