import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Read-only files that stay read-only for root (the tests run as root, for whom chmod 0444
 * stops nothing): the immutable attribute (chattr +i) refuses every write, also through a file
 * descriptor opened before it was set, as a disk remounted read-only does.
 */
export function setImmutable(files: string[], on: boolean): void {
  const existing = files.filter((file) => fs.existsSync(file));
  if (existing.length > 0) execFileSync('chattr', [on ? '+i' : '-i', ...existing]);
}

/** Whether this machine's temporary directory supports chattr +i (ext4, xfs, btrfs do; tmpfs does not). */
export function immutableSupported(): boolean {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-chattr-'));
  const file = path.join(dir, 'probe');
  fs.writeFileSync(file, '');
  try {
    setImmutable([file], true);
    try {
      fs.appendFileSync(file, 'x');
      return false;
    } catch {
      return true;
    } finally {
      setImmutable([file], false);
    }
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
