import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { expectOneLineError, mailroom } from '../helpers/cli.js';
import { startDovecot } from '../helpers/dovecot.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { immutableSupported, setImmutable } from '../helpers/immutable.js';

// The commands' refusals and wording are tested in-process in test/cli/refusals.test.ts; here,
// the exit codes and output streams of the real binary.
describe('the mailroom process when a command fails', { timeout: 180_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-errors-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('exits with the codes the README lists, the error as JSON on stdout under --json', async () => {
    const env = { MAILROOM_DATA_DIR: dataDir };
    expect((await mailroom(['user', 'add', 'alice', '--init'], env)).code).toBe(0);
    const cases: [string[], number, string][] = [
      [['user', 'add', 'alice', '--json'], 1, 'conflict'],
      [['frobnicate', '--json'], 2, 'usage'],
    ];
    for (const [args, exit, code] of cases) {
      const result = await mailroom(args, env);
      expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(exit);
      expect(JSON.parse(result.stdout).error.code).toBe(code);
      expect(result.stderr).toBe('');
    }
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
    expect(plain.stdout).toBe('');
    expectOneLineError(plain, /unknown command 'frobnicate'/, 2);
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
        expectOneLineError(
          result,
          /cannot use the data directory .*locked.* \(MAILROOM_DATA_DIR or --data-dir\): .*check its owner, its mode/,
          1,
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
        expectOneLineError(result, /cannot use the data directory .*mailroom\.db/, 1);
      } finally {
        setImmutable([dbFile], false);
      }
    });
  },
);
