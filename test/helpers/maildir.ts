import fs from 'node:fs';
import path from 'node:path';

/** Where a test IMAP server keeps a user's Maildir, and as whom (its mail owner). */
export interface MaildirHost {
  dir: string;
}

/**
 * Puts `count` messages straight into a user's Maildir (as another delivery agent would): the
 * server indexes them on the first SELECT. Every other one is marked seen. Far faster than
 * `count` APPENDs, so a test can make a big mailbox in a second.
 */
export function fillMaildir(
  host: MaildirHost,
  user: string,
  count: number,
  make: (i: number) => string | Buffer,
): void {
  const maildir = path.join(host.dir, 'mail', user);
  const owner = fs.statSync(path.join(host.dir, 'mail'));
  for (const sub of ['cur', 'new', 'tmp']) fs.mkdirSync(path.join(maildir, sub), { recursive: true });
  const stamp = Math.floor(Date.now() / 1000);
  for (let i = 0; i < count; i++) {
    fs.writeFileSync(path.join(maildir, 'cur', `${stamp + i}.M${i}P1.bench:2,${i % 2 ? 'S' : ''}`), make(i));
  }
  for (const entry of [maildir, ...['cur', 'new', 'tmp'].map((s) => path.join(maildir, s))]) {
    fs.chownSync(entry, owner.uid, owner.gid);
  }
  for (const file of fs.readdirSync(path.join(maildir, 'cur'))) {
    fs.chownSync(path.join(maildir, 'cur', file), owner.uid, owner.gid);
  }
}
