import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
  const entry = await compiled(file);
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [entry, ...args],
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
