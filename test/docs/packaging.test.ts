import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settings } from '../../src/config.js';

const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  name: string;
  license: string;
  bin: Record<string, string>;
  engines: { node: string };
};

describe('the npm package', () => {
  it('ships the MIT license, the mailroom command and the healthcheck script', () => {
    expect(pkg.license).toBe('MIT');
    expect(read('LICENSE')).toMatch(/^MIT License\n/);
    expect(pkg.bin).toEqual({ mailroom: 'bin/mailroom.js' });
    // `mailroom` on npm is someone else's package (an SES mail app).
    expect(pkg.name).toBe('mailroom-server');
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: new URL('../../', import.meta.url),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { files: { path: string }[] }[];
    const files = packed[0]!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'bin/mailroom.js', 'bin/healthcheck.js']));
  });
});

describe('the Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('runs the Node major version package.json targets', () => {
    const major = /^>=(\d+)/.exec(pkg.engines.node)![1];
    const bases = [...dockerfile.matchAll(/^FROM node:(\d+)-/gm)].map((m) => m[1]);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toBe(major);
  });

  it('checks readiness with the packaged script, which reads the port from the settings', () => {
    const check = /^HEALTHCHECK .* CMD (.*)$/m.exec(dockerfile)?.[1];
    expect(check).toBe('["node", "bin/healthcheck.js"]');
    expect(read('bin/healthcheck.js')).toContain("import '../dist/cli/healthcheck.js';");
    expect(read('src/cli/healthcheck.ts')).toContain('/readyz');
  });

  it('stops on SIGTERM and sets only settings that exist', () => {
    expect(dockerfile).toMatch(/^STOPSIGNAL SIGTERM$/m);
    const known = new Set(Object.values(settings).map((s) => s.env));
    for (const [, name] of dockerfile.matchAll(/\b(MAILROOM_[A-Z_]+)=/g)) expect(known, name).toContain(name);
  });
});
