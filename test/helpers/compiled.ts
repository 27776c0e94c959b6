import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** At the depth of dist/, so paths the code finds from its own file (../../migrations) still hold. */
const outDir = path.join(root, '.test-dist');
const stampFile = path.join(outDir, '.built');
const lockDir = `${outDir}.lock`;

/**
 * The absolute path of `src/<file>.ts` compiled to JavaScript, for tests that start the
 * `mailroom` command in a child process: Node starts it in a fraction of the time it takes
 * through tsx. Built from the sources whenever one of them is newer than the last build (never
 * a stale dist/), once for all test workers (a lock directory keeps them from building twice).
 */
export function compiled(file: string): Promise<string> {
  return Promise.resolve(compiledSync(file));
}

/**
 * compiled(), for callers that cannot wait (a worker thread is started synchronously). The build
 * takes about a second; the tests' globalSetup has normally done it before any test starts.
 */
export function compiledSync(file: string): string {
  if (!isFresh()) buildLocked();
  return path.join(outDir, file.replace(/^src\//, '').replace(/\.ts$/, '.js'));
}

function newestSource(dir = path.join(root, 'src')): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  try {
    return fs.statSync(stampFile).mtimeMs >= newestSource();
  } catch {
    return false;
  }
}

function buildLocked(): void {
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      break;
    } catch {
      // Another worker is building; a lock left by a killed run is taken over after a minute.
      const age = Date.now() - (fs.statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 60_000) fs.rmSync(lockDir, { recursive: true, force: true });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    if (isFresh()) return;
    const started = Date.now();
    fs.rmSync(outDir, { recursive: true, force: true });
    const entryPoints = listSources(path.join(root, 'src'));
    buildSync({
      entryPoints,
      outdir: outDir,
      outbase: path.join(root, 'src'),
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'error',
    });
    // The stamp carries the build's start, so a source saved during the build makes it stale.
    fs.writeFileSync(stampFile, '');
    fs.utimesSync(stampFile, new Date(started), new Date(started));
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

function listSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listSources(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}
