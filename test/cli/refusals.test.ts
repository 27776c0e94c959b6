import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLineError, mailroomInProcess as mailroom } from '../helpers/cli.js';

// What the commands refuse and how they say it, run in-process (src/cli/run.ts); the exit codes
// of the real binary are proven in test/e2e/cli-errors.test.ts.
describe('the CLI on a data directory without a database', () => {
  let parent: string;
  beforeAll(() => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-refusals-'));
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
    for (const args of commands) {
      expectOneLineError(
        await mailroom([...args, '--data-dir', missing], {}),
        /no Mailroom database in .*typo\/data .*--data-dir or MAILROOM_DATA_DIR.*--init/,
        1,
      );
    }
    expect(fs.existsSync(path.join(parent, 'typo'))).toBe(false);

    // MAILROOM_DATA_DIR alike, and an existing but empty directory alike.
    const empty = path.join(parent, 'empty');
    fs.mkdirSync(empty);
    expectOneLineError(
      await mailroom(['user', 'list'], { MAILROOM_DATA_DIR: empty }),
      /no Mailroom database/,
      1,
    );
    expect(fs.readdirSync(empty)).toEqual([]);

    const created = await mailroom(['user', 'list', '--json', '--init'], { MAILROOM_DATA_DIR: empty });
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({ users: [] });
    expect(fs.readdirSync(empty)).toContain('mailroom.db');
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
    for (const [args, exit, code, message] of cases) {
      const result = await mailroom(args, env);
      expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(exit);
      const { error } = JSON.parse(result.stdout);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
      expect(result.stderr).toBe('');
    }
  });

  it('takes a provider instead of URLs, and a refresh token from standard input', async () => {
    const dataDir = path.join(parent, 'provider');
    expect((await mailroom(['user', 'add', 'alice', '--init'], { MAILROOM_DATA_DIR: dataDir })).code).toBe(0);
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

describe('mailroom serve with a bad setting', () => {
  it('names the setting in one line, before anything starts', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-serve-'));
    try {
      const result = await mailroom(['serve', '--http-port', 'eighty'], { MAILROOM_DATA_DIR: dataDir });
      expectOneLineError(result, /MAILROOM_HTTP_PORT/, 1);
      // Refused before the database was opened: the directory is as it was.
      expect(fs.readdirSync(dataDir)).toEqual([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
