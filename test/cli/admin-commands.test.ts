import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailroom } from '../../src/mailroom.js';
import { expectOneLineError, mailroomInProcess as mailroom } from '../helpers/cli.js';

// The admin commands' rules, output and effect on a SQLite data directory, run in-process
// (src/cli/run.ts); test/e2e/cli.test.ts keeps what needs the process itself.
describe('the mailroom admin CLI on a data directory', () => {
  let dataDir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-'));
    env = { MAILROOM_DATA_DIR: dataDir };
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('adds a domain and prints the DNS records to publish', async () => {
    const result = await mailroom(['domain', 'add', 'team.example', '--init'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^MX\s+team\.example\s+10 \S+/m);
    expect(result.stdout).toMatch(/^TXT\s+team\.example\s+v=spf1 /m);
    expect(result.stdout).toMatch(/^TXT\s+\S+\._domainkey\.team\.example\s+v=DKIM1; k=rsa; p=\S+$/m);
    expect(result.stdout).toMatch(/^TXT\s+_dmarc\.team\.example\s+v=DMARC1; /m);
    expect(fs.existsSync(path.join(dataDir, 'mailroom.db'))).toBe(true);
    expect(result.stdout).toContain('set MAILROOM_HOSTNAME');
  });

  it('points the MX record at MAILROOM_HOSTNAME when it is set, without the note', async () => {
    const ownDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-mx-'));
    try {
      const result = await mailroom(['domain', 'add', 'other.example', '--init'], {
        MAILROOM_DATA_DIR: ownDir,
        MAILROOM_HOSTNAME: 'mx.other.example',
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^MX\s+other\.example\s+10 mx\.other\.example$/m);
      expect(result.stdout).not.toContain('set MAILROOM_HOSTNAME');
    } finally {
      fs.rmSync(ownDir, { recursive: true, force: true });
    }
  });

  it('answers --json with machine-readable output', async () => {
    const result = await mailroom(['domain', 'list', '--json'], env);
    expect(result.code).toBe(0);
    const { domains } = JSON.parse(result.stdout);
    expect(domains).toEqual([expect.objectContaining({ name: 'team.example' })]);
    expect(domains[0].dnsRecords).toHaveLength(4);
  });

  it('creates a user, an inbox and a key, and lists them, never showing the key again', async () => {
    const user = await mailroom(['user', 'add', 'support', '--json'], env);
    expect(user.code).toBe(0);
    expect(JSON.parse(user.stdout).user).toMatchObject({ name: 'support', id: expect.any(Number) });

    const inbox = await mailroom(
      ['inbox', 'add', 'help@team.example', '--user', 'support', '--display-name', 'Help desk', '--json'],
      env,
    );
    expect(inbox.code).toBe(0);
    expect(JSON.parse(inbox.stdout).inbox).toMatchObject({
      address: 'help@team.example',
      kind: 'local',
      user: 'support',
      displayName: 'Help desk',
    });

    const text = await mailroom(['key', 'create', '--user', 'support', '--name', 'ci'], env);
    expect(text.code).toBe(0);
    const plain = /^(mr_live_\S+)$/m.exec(text.stdout)?.[1];
    expect(plain).toBeDefined();

    const json = await mailroom(['key', 'create', '--user', 'support', '--json'], env);
    const created = JSON.parse(json.stdout).key;
    expect(created).toMatchObject({ key: expect.stringMatching(/^mr_live_/), user: 'support' });

    const keys = await mailroom(['key', 'list', '--user', 'support', '--json'], env);
    const listed = JSON.parse(keys.stdout).keys as { id: string; name: string; prefix: string }[];
    expect(listed).toHaveLength(2);
    expect(listed.map((k) => k.name).sort()).toEqual(['', 'ci']);
    expect(keys.stdout).not.toContain(created.key);
    expect(keys.stdout).not.toContain(plain);

    const table = await mailroom(['key', 'list'], env);
    expect(table.stdout).toMatch(/^id\s+name\s+prefix\s+user\s+created_at\s+last_used_at/);

    expect(JSON.parse((await mailroom(['user', 'list', '--json'], env)).stdout).users).toHaveLength(1);
    const inboxes = JSON.parse(
      (await mailroom(['inbox', 'list', '--json', '--user', 'support'], env)).stdout,
    );
    expect(inboxes.inboxes.map((i: { address: string }) => i.address)).toEqual(['help@team.example']);

    const revoked = await mailroom(['key', 'revoke', created.id, '--json'], env);
    expect(JSON.parse(revoked.stdout)).toEqual({ revoked: true });
  });

  it('exits non-zero with a one-line message on every kind of user error', async () => {
    const cases: [string[], RegExp, Record<string, string>?][] = [
      [['domain', 'add', 'team.example'], /already exists/],
      [['domain', 'add', 'not a domain'], /not a domain/],
      [['user', 'add', 'support'], /already exists/],
      [['user', 'add', 'bad name'], /user name/],
      [['inbox', 'add', 'x@elsewhere.example', '--user', 'support'], /not hosted/],
      [['inbox', 'add', 'new@team.example', '--user', 'ghost'], /no user/],
      [['key', 'create'], /--user/],
      [['key', 'revoke', 'key_nope'], /no active key/],
      [['domain', 'remove', 'team.example'], /still has inboxes/],
      [['frobnicate'], /unknown command/],
      [['user', 'list', '--bogus'], /unknown option/],
      [['user', 'list'], /MAILROOM_DB_SYNC/, { MAILROOM_DB_SYNC: 'sometimes' }],
    ];
    for (const [args, pattern, extra] of cases)
      expectOneLineError(await mailroom(args, { ...env, ...extra }), pattern);
  });

  it('takes --data-dir instead of MAILROOM_DATA_DIR', async () => {
    const result = await mailroom(['domain', 'list', '--json', '--data-dir', dataDir], {});
    expect(JSON.parse(result.stdout).domains).toHaveLength(1);
  });

  it('removes an inbox, a user and a domain', async () => {
    expect((await mailroom(['inbox', 'remove', 'help@team.example'], env)).code).toBe(0);
    expect((await mailroom(['user', 'remove', 'support'], env)).code).toBe(0);
    expect((await mailroom(['domain', 'remove', 'team.example', '--json'], env)).stdout).toContain(
      '"deleted"',
    );
    expect(JSON.parse((await mailroom(['domain', 'list', '--json'], env)).stdout).domains).toEqual([]);
  });
});

describe('the admin CLI and secrets at rest', () => {
  let parent: string;
  let dataDir: string;
  beforeAll(() => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-secrets-'));
    dataDir = path.join(parent, 'data');
  });
  afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

  it('creates the data directory 0700 and its files 0600, and stores the DKIM key sealed', async () => {
    const result = await mailroom(['domain', 'add', 'sealed.example', '--init'], {
      MAILROOM_DATA_DIR: dataDir,
    });
    expect(result.code).toBe(0);
    const modeOf = (name: string) => (fs.statSync(path.join(dataDir, name)).mode & 0o777).toString(8);
    expect(modeOf('.')).toBe('700');
    expect(modeOf('mailroom.db')).toBe('600');
    expect(modeOf('secret.key')).toBe('600');
    const files = fs.readdirSync(dataDir).filter((name) => name.startsWith('mailroom.db'));
    for (const name of files)
      expect(fs.readFileSync(path.join(dataDir, name)).includes('PRIVATE KEY')).toBe(false);

    // The server opens what the CLI sealed: the same secret.key, the key pair still a pair.
    const server = createMailroom({
      env: {},
      dataDir,
      bootstrap: false,
      ingestThread: false,
      parseThreads: 0,
      logger: pino({ level: 'silent' }),
    });
    await server.open();
    try {
      const { privateKey } = (await server.deps.store.domains.signingKey('sealed.example'))!;
      const published = (await server.deps.store.domains.find('sealed.example'))!.dkim_public_key;
      const derived = crypto.createPublicKey(privateKey).export({ type: 'spki', format: 'pem' });
      expect(derived).toBe(published);
    } finally {
      await server.db.close();
    }
  });

  it('says in one line that MAILROOM_SECRET is wrong for an admin command', async () => {
    const env = { MAILROOM_DATA_DIR: dataDir, MAILROOM_SECRET: 'not the secret of this database' };
    expectOneLineError(await mailroom(['domain', 'list'], env), /MAILROOM_SECRET/);
  });
});
