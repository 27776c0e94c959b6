// Engines: SQLite only: what README.md says.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settings } from '../../src/config.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('documents every MAILROOM_* setting with its default', () => {
    for (const setting of Object.values(settings)) {
      expect(readme, setting.env).toContain(`\`${setting.env}\``);
    }
  });

  it('shows, as its vitest example, the very suite the package test runs in a project of its own', () => {
    const example = /```ts\n([\s\S]*?)```/.exec(section('Use it in your tests'))?.[1];
    const consumer = fs.readFileSync(new URL('../consumer/mail.test.ts', import.meta.url), 'utf8');
    expect(example).toBe(consumer);
  });

  it('gives the two commands a newcomer needs', () => {
    expect(readme).toContain('npm start');
    expect(readme).toContain('npm test');
  });
});

/** The text under a `## title` heading, up to the next `## `. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no section "${title}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The ```sh blocks of a section that run curl. */
const curlBlocks = (text: string) =>
  [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.includes('curl'));

/**
 * Shell lines as a reader runs them: `\`-continued lines joined, comment lines dropped,
 * variable assignments (`API=...; H=...`) kept as the preamble of every later command.
 * `KEY=mr_live_...` is the reader's own key: the test passes its key in the environment.
 */
function steps(blocks: string[]): { preamble: string[]; command: string }[] {
  const preamble: string[] = [];
  const out: { preamble: string[]; command: string }[] = [];
  for (const block of blocks) {
    for (const line of block.replace(/\\\n\s*/g, ' ').split('\n')) {
      if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
      if (/^KEY=/.test(line)) continue;
      if (/^[A-Z]+=/.test(line)) preamble.push(line);
      else out.push({ preamble: [...preamble], command: line });
    }
  }
  return out;
}

interface StepResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One step in a bash of its own, as a reader's terminal runs it. `--norc`: bash reads ~/.bashrc
 * when its standard input is a socket (Node's pipes are), as if started by sshd; a .bashrc that
 * runs `pyenv init` (this machine's) cost 125 ms a step when idle and seconds under load.
 */
function runStep(script: string, cwd: string, env: Record<string, string>): Promise<StepResult> {
  return new Promise((resolve) => {
    execFile('bash', ['--norc', '-c', script], { cwd, env, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('README quick start and API tour, run as written', { timeout: 120_000 }, () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let cwd: string;
  beforeAll(async () => {
    server = await startServer({ eventStreamHeartbeatMs: 300 });
    receiver = await WebhookReceiver.start();
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-readme-'));
  });
  afterAll(async () => {
    await server.stop();
    await receiver.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it('runs every curl line of the quick start and the tour in order, each succeeding', async () => {
    const ports = (line: string) =>
      line
        .replaceAll('127.0.0.1:3000', `127.0.0.1:${server.mailroom.http.port}`)
        .replaceAll('127.0.0.1:2525', `127.0.0.1:${server.mailroom.smtp.port}`)
        .replaceAll('127.0.0.1:8080', new URL(receiver.url).host);
    const all = steps([...curlBlocks(section('Quick start')), ...curlBlocks(section('API tour'))]);
    expect(all.length).toBeGreaterThan(20);
    for (const { preamble, command } of all) {
      // A stream never ends by itself: it passes when it stays open (curl's timeout, exit 28) and talks.
      const stream = /\s-N\s/.test(command);
      const script = [
        'set -o pipefail',
        `curl() { command curl --fail-with-body --max-time ${stream ? 2 : 20} "$@"; }`,
        ...preamble.map(ports),
        ports(command),
      ].join('\n');
      const result = await runStep(script, cwd, { PATH: process.env.PATH ?? '', KEY: server.key });
      const report = `${command}\n-> exit ${result.code}\n${result.stdout}\n${result.stderr}`;
      expect(result.code, report).toBe(stream ? 28 : 0);
      if (stream) expect(result.stdout, report).toMatch(/^: ping/m);
      if (result.stdout.startsWith('{')) expect(JSON.parse(result.stdout).success, report).toBe(true);
    }
    expect(fs.readFileSync(path.join(cwd, 'notes.txt'), 'utf8')).toBe('Hello\n');
    expect((await server.api(`/emails?account=${server.inbox}&folder=Trash`)).json.data.emails).toEqual([
      expect.objectContaining({
        uid: 1,
        subject: 'Hello',
        labels: [expect.objectContaining({ name: 'Urgent' })],
        flags: ['\\Answered', '\\Seen'],
      }),
    ]);
  });
});
