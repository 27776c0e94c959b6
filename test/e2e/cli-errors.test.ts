import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { mailroom } from '../helpers/cli.js';
import type { CliResult } from '../helpers/cli.js';
import { startDovecot } from '../helpers/dovecot.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { immutableSupported, setImmutable } from '../helpers/immutable.js';

function expectOneLine(result: CliResult, exit: number, pattern: RegExp) {
  expect(result.code, result.stderr).toBe(exit);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^mailroom: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('the CLI on a data directory without a database', { timeout: 180_000 }, () => {
  let parent: string;
  beforeAll(() => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-errors-'));
  });
  afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

  it('refuses every admin command without --init, naming the path, and creates nothing', async () => {
    const missing = path.join(parent, 'typo', 'data');
    const commands = [
      ['domain', 'list'],
      ['domain', 'add', 'example.org'],
      ['domain', 'remove', 'example.org'],
      ['user', 'list'],
      ['user', 'add', 'alice'],
      ['key', 'list'],
      ['key', 'create', '--user', 'alice'],
      ['inbox', 'list'],
      ['inbox', 'add', 'a@example.org', '--user', 'alice'],
      ['backup', path.join(parent, 'backup.db')],
    ];
    const results = await Promise.all(commands.map((args) => mailroom([...args, '--data-dir', missing], {})));
    for (const result of results) {
      expectOneLine(
        result,
        1,
        /no Mailroom database in .*typo\/data .*--data-dir or MAILROOM_DATA_DIR.*--init/,
      );
    }
    expect(fs.existsSync(path.join(parent, 'typo'))).toBe(false);

    // MAILROOM_DATA_DIR alike, and an existing but empty directory alike.
    const empty = path.join(parent, 'empty');
    fs.mkdirSync(empty);
    expectOneLine(await mailroom(['user', 'list'], { MAILROOM_DATA_DIR: empty }), 1, /no Mailroom database/);
    expect(fs.readdirSync(empty)).toEqual([]);

    const created = await mailroom(['user', 'list', '--json', '--init'], { MAILROOM_DATA_DIR: empty });
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({ users: [] });
  });

  it('answers errors as JSON under --json, with the exit codes the README lists', async () => {
    const dataDir = path.join(parent, 'json');
    expect((await mailroom(['user', 'add', 'alice', '--init'], { MAILROOM_DATA_DIR: dataDir })).code).toBe(0);
    const env = { MAILROOM_DATA_DIR: dataDir };
    const cases: [string[], number, string, RegExp][] = [
      [['user', 'add', 'alice', '--json'], 1, 'conflict', /already exists/],
      [['user', 'remove', 'bob', '--json'], 1, 'not_found', /bob/],
      [['user', 'add', 'bad name', '--json'], 1, 'validation_error', /user name/],
      [['key', 'create', '--json'], 2, 'usage', /--user/],
      [['frobnicate', '--json'], 2, 'usage', /unknown command/],
      [['user', 'list', '--json', '--data-dir', path.join(parent, 'nothing')], 1, 'no_database', /--init/],
    ];
    const results = await Promise.all(cases.map(([args]) => mailroom(args, env)));
    results.forEach((result, i) => {
      const [args, exit, code, message] = cases[i]!;
      expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(exit);
      const { error } = JSON.parse(result.stdout);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
      expect(result.stderr).toBe('');
    });
    // A database another process keeps locked for writing: try again later (exit 3).
    const holder = new BetterSqlite3(path.join(dataDir, 'mailroom.db'));
    holder.exec('BEGIN IMMEDIATE');
    try {
      const busy = await mailroom(['user', 'add', 'bob', '--json'], env);
      expect(busy.code, busy.stdout).toBe(3);
      expect(JSON.parse(busy.stdout).error).toMatchObject({ code: 'unavailable' });
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }

    // Without --json: the same failures as one line on stderr, nothing on stdout.
    const plain = await mailroom(['frobnicate'], env);
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe('');
    expectOneLine(plain, 2, /unknown command 'frobnicate'/);
  });
});

describe('inbox connect without a password on the command line', { timeout: 180_000 }, () => {
  let dovecot: Dovecot;
  let capture: CaptureServer;
  let dataDir: string;
  beforeAll(async () => {
    dovecot = await startDovecot();
    dovecot.addUser('owner', 'correct horse battery');
    capture = await startCaptureServer();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-connect-'));
    expect((await mailroom(['user', 'add', 'alice', '--init'], { MAILROOM_DATA_DIR: dataDir })).code).toBe(0);
  });
  afterAll(async () => {
    await dovecot.stop();
    await capture.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const connect = (extra: string[], input?: string) =>
    mailroom(
      [
        'inbox',
        'connect',
        'owner@external.example',
        '--user',
        'alice',
        '--imap',
        dovecot.url('owner').replace(/:[^:@/]*@/, '@'),
        '--smtp',
        capture.url,
        '--json',
        ...extra,
      ],
      { MAILROOM_DATA_DIR: dataDir },
      input,
    );

  it('asks for --password-stdin when the URL has no password and there is no terminal', async () => {
    const result = await connect([]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error.message).toMatch(
      /no password: give it on standard input with --password-stdin/,
    );
  });

  it('takes the password from standard input: a wrong one is refused, the right one connects', async () => {
    const wrong = await connect(['--password-stdin'], 'not the password\n');
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout).error).toMatchObject({ code: 'upstream_error' });
    expect(wrong.stdout).not.toContain('not the password');

    const right = await connect(['--password-stdin'], 'correct horse battery\n');
    expect(right.code, right.stdout + right.stderr).toBe(0);
    expect(JSON.parse(right.stdout).inbox).toMatchObject({ address: 'owner@external.example', kind: 'imap' });
    expect(JSON.parse(right.stdout).servers).toMatchObject({ auth: 'password', source: 'the URLs given' });
    expect(right.stdout).not.toContain('correct horse battery');
  });

  it('takes a provider instead of URLs, and a refresh token from standard input', async () => {
    const run = (args: string[], input: string) =>
      mailroom(
        ['inbox', 'connect', 'someone@contoso.example', '--user', 'alice', '--json', ...args],
        { MAILROOM_DATA_DIR: dataDir },
        input,
      );
    // Microsoft takes OAuth2 only: refused before anything is tried.
    const password = await run(['--provider', 'microsoft', '--password-stdin'], 'pw\n');
    expect(password.code).toBe(1);
    expect(JSON.parse(password.stdout).error).toMatchObject({
      code: 'validation_error',
      message: expect.stringContaining('accept only OAuth2'),
    });
    const token = await run(['--provider', 'gmail', '--refresh-token-stdin'], 'rt-secret\n');
    expect(token.code).toBe(1);
    expect(JSON.parse(token.stdout).error.message).toContain('MAILROOM_OAUTH_GMAIL_CLIENT_ID');
    expect(token.stdout).not.toContain('rt-secret');
  });
});

describe.skipIf(!immutableSupported())(
  'first start on a data directory that cannot be written',
  { timeout: 180_000 },
  () => {
    let parent: string;
    let locked: string;
    beforeAll(() => {
      parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-readonly-'));
      // Empty and read-only for everyone, root included (tests run as root: chmod would not do).
      locked = path.join(parent, 'locked');
      fs.mkdirSync(locked);
      setImmutable([locked], true);
    });
    afterAll(() => {
      setImmutable([locked], false);
      fs.rmSync(parent, { recursive: true, force: true });
    });

    it('says in one line which directory and what to check, for serve and the CLI', async () => {
      const serve = ['serve', '--http-port', '0', '--smtp-port', '0'];
      const results = await Promise.all([
        mailroom(serve, { MAILROOM_DATA_DIR: locked }),
        mailroom(serve, { MAILROOM_DATA_DIR: path.join(locked, 'below') }),
        mailroom(['user', 'list', '--init'], { MAILROOM_DATA_DIR: locked }),
      ]);
      for (const result of results) {
        expectOneLine(
          result,
          1,
          /cannot use the data directory .*locked.* \(MAILROOM_DATA_DIR or --data-dir\): .*check its owner, its mode/,
        );
      }
      expect(fs.readdirSync(locked)).toEqual([]);
    });

    it('names the database file when it cannot be written', async () => {
      const dataDir = path.join(parent, 'data');
      expect((await mailroom(['user', 'add', 'alice', '--init'], { MAILROOM_DATA_DIR: dataDir })).code).toBe(
        0,
      );
      const dbFile = path.join(dataDir, 'mailroom.db');
      setImmutable([dbFile], true);
      try {
        const result = await mailroom(['serve', '--http-port', '0', '--smtp-port', '0'], {
          MAILROOM_DATA_DIR: dataDir,
        });
        expectOneLine(result, 1, /cannot use the data directory .*mailroom\.db/);
      } finally {
        setImmutable([dbFile], false);
      }
    });
  },
);
