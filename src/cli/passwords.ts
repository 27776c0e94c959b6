import { CliError } from './errors.js';
import { cliIo } from './io.js';

interface Urls {
  imap: string;
  smtp: string;
}

/** A URL with a user name and no password; undefined for one that needs nothing (or does not parse). */
function needsPassword(value: string): URL | undefined {
  try {
    const url = new URL(value.trim());
    return url.username && !url.password ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Puts the passwords into URLs that name a user but carry none: from standard input with
 * --password-stdin (first line IMAP, an optional second line SMTP), else asked for on the
 * terminal without echo. A password typed into the URL itself still works, but is visible to
 * other users in `ps` and stays in the shell's history.
 */
export async function fillPasswords(urls: Urls, fromStdin: boolean): Promise<Urls> {
  const imap = needsPassword(urls.imap);
  const smtp = needsPassword(urls.smtp);
  if (!imap && !smtp) return urls;
  let passwords: (string | undefined)[];
  if (fromStdin) {
    passwords = (await readStdin()).split(/\r?\n/);
  } else if (cliIo().stdin.isTTY) {
    passwords = [
      imap
        ? await promptHidden(`IMAP password for ${decodeURIComponent(imap.username)}@${imap.hostname}: `)
        : '',
      smtp
        ? await promptHidden(
            `SMTP password for ${decodeURIComponent(smtp.username)}@${smtp.hostname} (Enter: the same): `,
          )
        : '',
    ];
  } else {
    throw new CliError(
      'validation_error',
      `${imap ? '--imap' : '--smtp'} names a user but no password: give it on standard input with --password-stdin`,
    );
  }
  const first = passwords[0] ?? '';
  const second = passwords[1] || first;
  if (!first && !second) throw new CliError('validation_error', 'no password was given');
  const fill = (url: URL | undefined, password: string, original: string) => {
    if (!url) return original;
    url.password = encodeURIComponent(password);
    return url.toString();
  };
  return {
    imap: fill(imap, first || second, urls.imap),
    smtp: fill(smtp, imap ? second : first, urls.smtp),
  };
}

/**
 * A user's new dashboard password: the first line of standard input with --password-stdin, else
 * asked for twice on the terminal without echo.
 */
export async function readNewPassword(fromStdin: boolean, name: string): Promise<string> {
  if (fromStdin) return (await readStdin()).split(/\r?\n/)[0] ?? '';
  if (!cliIo().stdin.isTTY) {
    throw new CliError(
      'validation_error',
      'no terminal to ask the password on: give it on standard input with --password-stdin',
    );
  }
  const first = await promptHidden(`New password for ${name}: `);
  const again = await promptHidden('The same again: ');
  if (first !== again)
    throw new CliError('validation_error', 'the two passwords differ; nothing was changed');
  return first;
}

/**
 * One secret (a password or an OAuth2 refresh token) for a connect without URLs: the first line of
 * standard input with `fromStdin`, else asked for on the terminal without echo.
 */
export async function readSecret(what: string, flag: string, fromStdin: boolean): Promise<string> {
  let value: string;
  if (fromStdin) value = (await readStdin()).split(/\r?\n/)[0] ?? '';
  else if (cliIo().stdin.isTTY) value = await promptHidden(`${what}: `);
  else throw new CliError('validation_error', `no ${what} given: pass it on standard input with ${flag}`);
  if (!value.trim()) throw new CliError('validation_error', `no ${what} was given`);
  return value.trim();
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of cliIo().stdin) chunks.push(Buffer.from(chunk as Buffer | string));
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads one line from the terminal in raw mode, echoing nothing (a terminal is the process's own). */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          done();
          resolve(value);
          return;
        }
        if (ch === '\u0003') {
          done();
          reject(new CliError('interrupted', 'interrupted'));
          return;
        }
        value = ch === '\u007f' || ch === '\b' ? value.slice(0, -1) : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}
