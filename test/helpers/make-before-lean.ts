/**
 * Made fixtures/db/before-lean.sql.gz and before-lean-answers.json.gz, once, with the server as it
 * stood before migration 017 (commit 2988a25: text and html in `messages`, the source in
 * `message_raw` uncompressed, FTS5 with positions). Kept for the record: run with that release's
 * build (`npx tsx test/helpers/make-before-lean.ts` in a checkout of it), never with a later one.
 * test/e2e/lean-upgrade.test.ts loads the database and expects the answers again, after the upgrade.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { startMailroom } from '../bench/processes.js';
import { CORPUS_INBOXES, makeCorpus } from '../bench/storage-corpus.js';
import { openSmtp } from './smtp-session.js';
import { BEFORE_LEAN_SECRET, recordAnswers } from './lean-answers.js';

const ADMIN = 'fixture-admin-token-0123456789';
const out = path.resolve(import.meta.dirname, '../../fixtures/db');

const server = await startMailroom({ MAILROOM_ADMIN_TOKEN: ADMIN, MAILROOM_SECRET: BEFORE_LEAN_SECRET });
try {
  const base = `http://127.0.0.1:${server.httpPort}`;
  const call = async (method: string, url: string, body?: unknown, token = server.apiKey) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  for (const address of CORPUS_INBOXES.slice(1))
    await call('POST', '/admin/v1/inboxes', { address, user: 'default' }, ADMIN);

  // Real-world shapes, small enough for a fixture, and the fixtures/ messages themselves.
  const corpus = (await makeCorpus(80, 17)).filter((m) => m.raw.length < 60_000).slice(0, 28);
  const emls = fs
    .readdirSync(path.resolve(import.meta.dirname, '../../fixtures'))
    .filter((f) => f.endsWith('.eml'))
    .map((f) => fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures', f)));
  // A source of more than 1 MB, stored in pieces (message_raw_parts).
  const big = await new MailComposer({
    from: 'reports@example.com',
    to: CORPUS_INBOXES[0],
    subject: 'The yearly export',
    text: 'The export is attached.',
    attachments: [
      {
        filename: 'export.csv',
        content: 'date,units,revenue\r\n'.concat('2024-01-01,12,3400\r\n'.repeat(70_000)),
      },
    ],
    newline: 'win',
  })
    .compile()
    .build();
  const smtp = await openSmtp(server.smtpPort);
  for (const message of [
    ...corpus.map((m) => ({ raw: m.raw, to: m.to })),
    ...emls.map((raw) => ({ raw, to: [CORPUS_INBOXES[0]!] })),
    { raw: big, to: [CORPUS_INBOXES[0]!] },
  ]) {
    const { data } = await smtp.send('sender@example.com', message.to, message.raw);
    if (data?.code !== 250) throw new Error(`not filed: ${JSON.stringify(data)}`);
  }
  await smtp.close();

  const inbox = CORPUS_INBOXES[0]!;
  await call('POST', '/api/v1/emails/send', {
    from: inbox,
    to: ['ops@mailroom.test', 'someone@example.com'],
    subject: 'Sent before the upgrade',
    text: 'Plain words, sent.',
    html: '<p>Plain <b>words</b>, sent.</p>',
  });
  await call('POST', '/api/v1/emails/drafts?account=' + inbox, {
    to: 'someone@example.com',
    subject: 'A draft',
    text: 'Not sent yet',
  });
  await call('POST', `/api/v1/emails/1/labels?account=${inbox}`, { labels: ['finance'] }).catch(async () => {
    await call('POST', '/api/v1/labels', { name: 'finance' });
    await call('POST', `/api/v1/emails/1/labels?account=${inbox}`, { labels: ['finance'] });
  });
  await call('DELETE', `/api/v1/emails/2?account=${inbox}`);
  await call('PATCH', `/api/v1/emails/3?account=${inbox}`, { action: 'read' });

  const answers = await recordAnswers(base, server.apiKey);
  fs.writeFileSync(
    path.join(out, 'before-lean-answers.json.gz'),
    zlib.gzipSync(JSON.stringify({ apiKey: server.apiKey, answers })),
  );

  const exited = new Promise<void>((resolve) => server.process.once('exit', () => resolve()));
  server.process.kill('SIGTERM');
  await exited;
  const dump = execFileSync('sqlite3', [path.join(server.dataDir, 'mailroom.db'), '.dump'], {
    maxBuffer: 1 << 30,
  });
  fs.writeFileSync(path.join(out, 'before-lean.sql.gz'), zlib.gzipSync(dump, { level: 9 }));
  console.log(`wrote ${answers.length} answers and a dump of ${dump.length} bytes`);
} finally {
  await server.stop();
}
