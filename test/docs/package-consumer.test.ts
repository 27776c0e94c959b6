import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
const versionOf = (name: string, where = root) =>
  readJson(path.join(where, 'node_modules', name, 'package.json')).version as string;

/**
 * What the consumer installs besides the tarball, at the versions this repository has (so the npm
 * cache has them): as `typescript`, the TypeScript 7 compiler this repository builds with (its
 * `typescript` is TypeScript 6's API for the lint, package.json says why).
 */
const CONSUMER_DEV_DEPENDENCIES: Record<string, string> = {
  vitest: 'vitest',
  typescript: 'typescript-native',
  '@types/node': '@types/node',
  nodemailer: 'nodemailer',
  '@types/nodemailer': '@types/nodemailer',
};

/** The child processes see no MAILROOM_* setting of this run. */
const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('MAILROOM_')),
);

async function sh(command: string, args: string[], cwd: string) {
  try {
    return await run(command, args, { cwd, env: childEnv, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, {
      cause: error,
    });
  }
}

/**
 * The package as a user gets it: built, packed with `npm pack`, installed with `npm install` into a
 * new project outside this repository, whose strict `tsc` (skipLibCheck: false) and vitest suite
 * (test/consumer/, the README's example) must pass. Installing takes the npm cache this repository
 * was installed from (--prefer-offline, the same versions), skips install scripts, and reuses this
 * repository's built better-sqlite3 binary instead of compiling it again.
 */
describe('mailroom-server installed from its tarball in another project', { timeout: 240_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-consumer-'));
    // The build's tsc is incremental: after `npm ci` (whose prepare built) it only checks.
    // The generated client types are checked against the served documents by client-types.test.ts.
    await sh('npm', ['run', '--silent', 'tsc', '--', '-p', 'tsconfig.build.json'], root);
    const packed = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root);
    const tarball = (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename;
    const pkg = readJson(path.join(root, 'package.json'));
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify(
        {
          name: 'mailroom-consumer',
          private: true,
          type: 'module',
          devDependencies: {
            'mailroom-server': `file:./${tarball}`,
            ...Object.fromEntries(
              Object.entries(CONSUMER_DEV_DEPENDENCIES).map(([name, here]) => [name, versionOf(here)]),
            ),
          },
          // The registry this runs against lags behind for a few of mailparser's dependencies, as for
          // this repository; better-sqlite3 pinned so the binary built here fits.
          overrides: { ...(pkg.overrides as object), 'better-sqlite3': versionOf('better-sqlite3') },
        },
        null,
        2,
      ),
    );
    for (const file of ['mail.test.ts', 'tsconfig.json'])
      fs.copyFileSync(path.join(root, 'test/consumer', file), path.join(dir, file));
    await sh(
      'npm',
      ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
      dir,
    );
    const binary = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    fs.mkdirSync(path.dirname(path.join(dir, binary)), { recursive: true });
    fs.copyFileSync(path.join(root, binary), path.join(dir, binary));
  }, 240_000);
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('installs the package with its command, its client and its migrations', () => {
    const installed = path.join(dir, 'node_modules/mailroom-server');
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/client/index.js', 'bin/mailroom.js'])
      expect(fs.existsSync(path.join(installed, file)), file).toBe(true);
    expect(fs.readdirSync(path.join(installed, 'migrations'))).toContain('001_init.sql');
    expect(fs.existsSync(path.join(installed, 'dist/.tsbuildinfo'))).toBe(false);
  });

  it('names in its types no package but openapi-fetch (the client): no database driver, logger or schema library', () => {
    const installed = path.join(dir, 'node_modules/mailroom-server/dist');
    const named = packagesNamedBy([
      path.join(installed, 'index.d.ts'),
      path.join(installed, 'client/index.d.ts'),
    ]);
    expect(named).toEqual(['openapi-fetch']);
  });

  it("type-checks the consumer's suite strictly, without skipLibCheck", async () => {
    const tsconfig = readJson(path.join(dir, 'tsconfig.json')).compilerOptions as Record<string, unknown>;
    expect(tsconfig).toMatchObject({ strict: true, skipLibCheck: false });
    await sh('npx', ['tsc', '-p', '.'], dir);
  });

  it("runs the consumer's vitest suite: createMailroom, waitForEmail, reset and the typed client", async () => {
    const { stdout } = await sh('npx', ['vitest', 'run', '--reporter=json'], dir);
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      numPassedTests: number;
      numFailedTests: number;
    };
    expect(report).toMatchObject({ numPassedTests: 3, numFailedTests: 0 });
  });
});

/** The packages a set of .d.ts files name, following their relative imports (comments left out). */
function packagesNamedBy(entries: string[]): string[] {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    const references = [...text.matchAll(/^\/\/\/\s*<reference\s+types=["']([^"']+)["']/gm)];
    const code = text.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
    const imports = [...code.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)];
    for (const [, spec] of [...references, ...imports]) {
      if (spec!.startsWith('.')) visit(path.resolve(path.dirname(file), spec!.replace(/\.js$/, '.d.ts')));
      else
        packages.add(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!);
    }
  };
  entries.forEach(visit);
  return [...packages].sort();
}
