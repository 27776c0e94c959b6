import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the `mailroom` command from source (tsx), so the test never depends on a stale dist/.
 * Only the environment given here reaches it, besides PATH; `input` is its standard input.
 */
export function mailroom(args: string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  return runSource('src/cli/main.ts', args, env, input);
}

/** The Docker HEALTHCHECK script (bin/healthcheck.js runs the same module from dist/). */
export function healthcheck(env: Record<string, string>): Promise<CliResult> {
  return runSource('src/cli/healthcheck.ts', [], env);
}

function runSource(
  file: string,
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', path.join(root, file), ...args],
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
