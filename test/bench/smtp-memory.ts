/**
 * By hand: memory of the server while many large messages arrive at once, and after.
 *   npm run build && npx tsx test/bench/smtp-memory.ts [sessions=40] [megabytes=24] [size]
 * Starts `mailroom serve` (bin/mailroom.js, as `npm start` does) with default settings
 * (the per-IP limit raised so one loopback client can open every session), sends each session
 * one message with a large attachment over real SMTP, and prints the server's peak RSS (VmHWM),
 * its RSS after the burst and again after the refused ones were retried one at a time. With
 * `size` each MAIL FROM declares SIZE= as Postfix and most MTAs do.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { largeMessage } from '../helpers/large-message.js';
import { openSmtp } from '../helpers/smtp-session.js';

const sessions = Number(process.argv[2] ?? 40);
const megabytes = Number(process.argv[3] ?? 24);
const declareSize = process.argv[4] === 'size';
const root = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-memory-'));
const smtpPort = 20_000 + Math.floor(Math.random() * 20_000);

const child = spawn(process.execPath, [path.join(root, 'bin/mailroom.js'), 'serve'], {
  cwd: root,
  env: {
    ...process.env,
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_SMTP_PORT: String(smtpPort),
    MAILROOM_HTTP_PORT: '0',
    MAILROOM_VERIFY_AUTH: 'false',
    MAILROOM_LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'inherit', 'pipe'],
});
// The banner with the ports is on stderr (stdout carries only JSON log lines).
let output = '';
child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

const status = (field: 'VmRSS' | 'VmHWM'): number => {
  const line = fs
    .readFileSync(`/proc/${child.pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(field))!;
  return Math.round(Number(/(\d+)/.exec(line)![1]) / 1024);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// One message, built once: base64 lines never start with a dot, so no dot-stuffing is needed.
const message = Buffer.from(largeMessage(megabytes, 'agent@mailroom.test')(0));

async function send(): Promise<number> {
  const smtp = await openSmtp(smtpPort);
  try {
    await smtp.command('EHLO client.example');
    const mail = await smtp.command(
      `MAIL FROM:<big@example.com>${declareSize ? ` SIZE=${message.length}` : ''}`,
    );
    if (mail.code !== 250) return mail.code;
    await smtp.command('RCPT TO:<agent@mailroom.test>');
    const start = await smtp.command('DATA');
    if (start.code !== 354) return start.code;
    smtp.write(message);
    smtp.write('\r\n.\r\n');
    return (await smtp.nextReply()).code;
  } finally {
    await smtp.close();
  }
}

const count = (codes: number[]) =>
  Object.entries(codes.reduce<Record<number, number>>((acc, c) => ({ ...acc, [c]: (acc[c] ?? 0) + 1 }), {}))
    .map(([code, n]) => `${n}x ${code}`)
    .join(', ');

try {
  for (let i = 0; i < 300 && !output.includes('Mailroom is running'); i++) await sleep(100);
  await sleep(1000);
  console.log(`message ${(message.length / 1024 / 1024).toFixed(1)} MiB, ${sessions} sessions in parallel`);
  console.log(`idle RSS ${status('VmRSS')} MB`);
  const started = Date.now();
  const codes = await Promise.all(Array.from({ length: sessions }, () => send()));
  console.log(`burst: ${count(codes)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`peak RSS ${status('VmHWM')} MB, RSS right after ${status('VmRSS')} MB`);
  const retried: number[] = [];
  for (const code of codes) if (code !== 250) retried.push(await send());
  if (retried.length) console.log(`retried one at a time: ${count(retried)}`);
  await sleep(10_000);
  console.log(`RSS 10 s later ${status('VmRSS')} MB, peak ${status('VmHWM')} MB`);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
