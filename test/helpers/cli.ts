import { execFile } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { run as runCommand } from '../../src/cli/run.js';
import { expect } from 'vitest';
import { compiled } from './compiled.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the `mailroom` command compiled from the current sources (see compiled.ts).
 * Only the environment given here reaches it, besides PATH; `input` is its standard input.
 */
export function mailroom(args: string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  return runSource('src/cli/main.ts', args, env, input);
}

/**
 * The `mailroom` command run in this process (src/cli/run.ts), for its rules and wording: the
 * same output and exit code as the process, without starting one. Only `env` is its environment;
 * `input` its standard input (a pipe, never a terminal).
 */
export async function mailroomInProcess(
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCommand({
    argv: args,
    env,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from(input ? [input] : []),
  });
  return { code, stdout, stderr };
}

/** A user error: non-zero exit, exactly one line on stderr, no stack trace. */
export function expectOneLineError(result: CliResult, pattern: RegExp, exit?: number): void {
  if (exit === undefined) expect(result.code, result.stderr).not.toBe(0);
  else expect(result.code, result.stderr).toBe(exit);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^mailroom: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

/**
 * A command line as a person pastes it into a terminal: bash runs it as written (quotes,
 * `$VARIABLES`, `VAR=value` prefixes), `npx mailroom` standing for the command compiled from the
 * current sources. Only PATH and `env` are in its environment.
 */
export async function runAsPasted(line: string, env: Record<string, string>): Promise<CliResult> {
  const cli = [process.execPath, await compiled('src/cli/main.ts')].map((p) => JSON.stringify(p)).join(' ');
  const npx = `npx() { if [ "$1" = mailroom ]; then shift; ${cli} "$@"; else command npx "$@"; fi; }`;
  // --norc: bash reads ~/.bashrc when its stdin is a socket (see test/docs/readme.test.ts).
  return run('bash', ['--norc', '-c', `${npx}\n${line}`], env);
}

/** The line of a start banner that runs `npx mailroom <command> ...`, as printed (without its indent). */
export function printedCommand(banner: string, command: string): string {
  const line = banner.split('\n').find((l) => l.startsWith('  ') && l.includes(`npx mailroom ${command} `));
  if (!line) throw new Error(`no "npx mailroom ${command}" line in the banner:\n${banner}`);
  return line.trim();
}

/** The Docker HEALTHCHECK script (bin/healthcheck.js runs the same module from dist/). */
export function healthcheck(env: Record<string, string>): Promise<CliResult> {
  return runSource('src/cli/healthcheck.ts', [], env);
}

async function runSource(
  file: string,
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<CliResult> {
  return run(process.execPath, [await compiled(file), ...args], env, input);
}

function run(command: string, args: string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    // Standard input is a pipe that ends (never a terminal): `input`, or nothing.
    child.stdin?.end(input);
  });
}
