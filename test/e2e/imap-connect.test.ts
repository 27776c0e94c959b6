// Engines: SQLite only: connecting an IMAP account (probing the remote), a protocol rule; postgres-doors connects one on PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMessage } from '../helpers/dovecot.js';
import { ADMIN_TOKEN, eventuallyFolder, startImapWorld } from '../helpers/imap-setup.js';
import type { ImapWorld } from '../helpers/imap-setup.js';
import { eventually } from '../helpers/server.js';
import { sqliteOf } from '../helpers/sqlite-of.js';

describe('connecting an external mailbox', () => {
  let world: ImapWorld;
  beforeAll(async () => {
    world = await startImapWorld();
    await world.other.append('INBOX', rawMessage({ subject: 'Already there' }), ['\\Seen']);
  });
  afterAll(async () => world.stop());

  const connectWith = (imap: string, smtp = world.capture.url, address = world.address) =>
    world.server.api('/admin/v1/inboxes', {
      key: ADMIN_TOKEN,
      body: { address, user: 'default', imap: { url: imap }, smtp: { url: smtp } },
    });

  it('refuses a wrong password at once with 502 and stores nothing', async () => {
    const res = await connectWith(world.dovecot.url(world.user, 'wrong-password'));
    expect(res.status).toBe(502);
    expect(res.json.error.code).toBe('upstream_error');
    expect(res.json.error.message).toMatch(/refused the login/);
    expect(res.text).not.toContain('wrong-password');
    const inboxes = await world.server.api('/admin/v1/inboxes', { key: ADMIN_TOKEN });
    expect(inboxes.json.data.inboxes.map((i: { address: string }) => i.address)).not.toContain(world.address);
  });

  it('answers 422 when the IMAP host cannot be reached', async () => {
    const res = await connectWith(`imap://u:p@127.0.0.1:1`);
    expect(res.status).toBe(422);
    expect(res.json.error.message).toMatch(/cannot reach the IMAP server 127\.0\.0\.1:1/);
  });

  it('answers 422 when the SMTP host cannot be reached', async () => {
    const res = await connectWith(world.dovecot.url(world.user), 'smtp://127.0.0.1:1');
    expect(res.status).toBe(422);
    expect(res.json.error.message).toMatch(/SMTP/);
  });

  it('checks the URLs and that both are given', async () => {
    expect((await connectWith('http://x@y')).status).toBe(400);
    expect((await connectWith('imap://127.0.0.1:143')).json.error.details[0].path).toBe('imap');
    const onlyImap = await world.server.api('/admin/v1/inboxes', {
      key: ADMIN_TOKEN,
      body: { address: world.address, user: 'default', imap: { url: world.dovecot.url(world.user) } },
    });
    expect(onlyImap.status).toBe(400);
  });

  it('connects, never shows the credentials, and keeps them encrypted at rest', async () => {
    const res = await world.connect();
    expect(res.status).toBe(201);
    expect(res.json.data.inbox).toMatchObject({ address: world.address, kind: 'imap', user: 'default' });
    expect(JSON.stringify(res.json)).not.toContain(world.password);

    const accounts = await eventually(async () => {
      const list = await world.server.api('/accounts');
      const mine = list.json.data.accounts.find((a: { address: string }) => a.address === world.address);
      return mine?.sync?.state === 'synced' ? list : null;
    });
    expect(accounts.text).not.toContain(world.password);
    const mine = accounts.json.data.accounts.find((a: { address: string }) => a.address === world.address);
    expect(mine).toMatchObject({ kind: 'imap', sync: { state: 'synced', error: null } });
    expect(mine.sync.lastSyncAt).toEqual(expect.any(String));

    const admin = await world.server.api('/admin/v1/inboxes', { key: ADMIN_TOKEN });
    expect(admin.text).not.toContain(world.password);

    // At rest: the SQLite file's bytes, or what PostgreSQL holds for the inbox.
    const db = world.server.mailroom.db;
    const stored =
      db.engine === 'sqlite'
        ? (sqliteOf(db).pragma('wal_checkpoint(TRUNCATE)'),
          fs.readFileSync(path.join(world.server.dataDir, 'mailroom.db')))
        : Buffer.from(JSON.stringify(await db.rawAll('SELECT * FROM inboxes')));
    expect(stored.includes(Buffer.from(world.password))).toBe(false);
    expect(stored.includes(Buffer.from(`imap://${world.user}:`))).toBe(false);

    const inbox = await eventuallyFolder(world, 'INBOX', (emails) => emails.length === 1);
    expect(inbox[0]).toMatchObject({ subject: 'Already there', flags: ['\\Seen'] });
  });

  it('answers 409 for an address already connected', async () => {
    const res = await world.connect();
    expect(res.status).toBe(409);
  });

  it('shows a sync error in GET /accounts when the password changes, and recovers', async () => {
    const passwd = world.dovecot.passwdFileOf(world.user);
    const original = fs.readFileSync(passwd, 'utf8');
    fs.writeFileSync(passwd, original.replace(world.password, 'changed-elsewhere'));
    await world.dovecot.restart();
    const failing = await eventually(async () => {
      const list = await world.server.api('/accounts');
      const mine = list.json.data.accounts.find((a: { address: string }) => a.address === world.address);
      return /refused the login/.test(mine?.sync?.error ?? '') ? mine : null;
    });
    expect(failing.sync.state).not.toBe('synced');
    fs.writeFileSync(passwd, original);
    await eventually(async () => {
      const list = await world.server.api('/accounts');
      const mine = list.json.data.accounts.find((a: { address: string }) => a.address === world.address);
      return mine?.sync?.state === 'synced' && mine.sync.error === null;
    }, 30_000);
  });
});
