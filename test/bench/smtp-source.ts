import { execFileSync } from 'node:child_process';

/**
 * Postfix's load generator, as issue 31 measures ingest: `smtp-source -s 20 -m 2000 -l 5120`, one
 * message per connection (its default), or with `-d` every session's messages over one
 * connection. Written in C, it costs the shared cores little. From Debian's `postfix` package
 * (`apt-get install postfix`, "No configuration"); the bench skips it when it is not installed.
 */
export function hasSmtpSource(): boolean {
  try {
    execFileSync('smtp-source', [], { stdio: 'ignore' });
  } catch (error) {
    // It exits 1 with its usage; only a missing binary is ENOENT.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  return true;
}

/** Messages a second for `count` messages of ~5 KB over 20 sessions (after 20 to warm up). */
export function runSmtpSource(port: number, to: string, count: number, persistent: boolean): number {
  const target = `127.0.0.1:${port}`;
  execFileSync('smtp-source', ['-s', '20', '-m', '20', '-t', to, target]);
  const args = ['-s', '20', '-m', String(count), '-l', '5120', '-f', 'bench@example.com', '-t', to];
  const started = process.hrtime.bigint();
  execFileSync('smtp-source', [...args, ...(persistent ? ['-d'] : []), target]);
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}
