// Engines: SQLite only: every route that names an account answers 403 to another user's key and changes nothing (HTTP); which inbox an account names and for whom (case, a ghost, the accounts listed) is test/mailbox/access.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

interface OpenApiOperation {
  parameters?: { name: string; in: string }[];
}

describe("one user's key against another user's inbox", () => {
  let server: TestServer;
  let mallory: { key: string; inbox: string };
  let uid: number;
  let threadId: string;
  let attachmentId: string;

  beforeAll(async () => {
    server = await startServer();
    mallory = await server.addUser('mallory');
    await server.sendMail({
      from: 'alice@example.com',
      to: server.inbox,
      subject: 'Private',
      text: 'For the agent only',
      attachments: [{ filename: 'secret.txt', content: 'secret' }],
    });
    const email = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails[0];
    uid = email.uid;
    threadId = email.threadId;
    attachmentId = email.attachments[0].id;
  });
  afterAll(async () => server.stop());

  const readRoutes = () => [
    `/emails?account=${server.inbox}`,
    `/emails?account=${server.inbox}&q=private`,
    `/emails/${uid}?account=${server.inbox}`,
    `/emails/${uid}/raw?account=${server.inbox}`,
    `/emails/${uid}/attachments/${attachmentId}?account=${server.inbox}`,
    `/threads?account=${server.inbox}`,
    `/threads/${threadId}?account=${server.inbox}`,
    `/folders?account=${server.inbox}`,
  ];

  it('answers 403 forbidden on every read route, and shows nothing of the mail', async () => {
    for (const path of readRoutes()) {
      const res = await server.api(path, { key: mallory.key });
      expect(res.status, path).toBe(403);
      expect(res.json.error.code, path).toBe('forbidden');
      expect(res.text, path).not.toMatch(/Private|For the agent only|secret/);
    }
  });

  it('gives the same answer for an inbox that does not exist, but for the account it names', async () => {
    const ghost = `ghost@${server.inbox.split('@')[1]}`;
    for (const path of readRoutes()) {
      const res = await server.api(path.replace(server.inbox, ghost), { key: mallory.key });
      expect(res.status, path).toBe(403);
      const real = (await server.api(path, { key: mallory.key })).json.error.message as string;
      expect(res.json.error.message).toBe(real.replace(server.inbox, ghost));
    }
  });

  it('answers 403 on every GET route of the OpenAPI document that names an account', async () => {
    const doc = (await server.api('/api/v1/openapi.json', { key: null })).json as {
      paths: Record<string, { get?: OpenApiOperation }>;
    };
    const values: Record<string, string> = {
      id: String(uid),
      attachmentId,
      threadId,
      name: 'INBOX',
      direction: 'receive',
      type: 'block',
    };
    const checked: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      const params = item.get?.parameters ?? [];
      if (!params.some((p) => p.name === 'account' && p.in === 'query')) continue;
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? 'x');
      const res = await fetch(`${server.baseUrl}/api/v1${path}?account=${server.inbox}`, {
        headers: { authorization: `Bearer ${mallory.key}` },
        signal: AbortSignal.timeout(5000),
      });
      expect(res.status, template).toBe(403);
      await res.body?.cancel();
      checked.push(template);
    }
    expect(checked).toEqual(expect.arrayContaining(['/emails', '/emails/{id}', '/threads']));
  });

  it('answers 403 on every route that changes mail, and changes nothing', async () => {
    const victim = server.inbox;
    const writes: [string, string, unknown?][] = [
      ['PATCH', `/emails/${uid}?account=${victim}`, { action: 'read' }],
      ['PATCH', `/emails/${uid}?account=${victim}`, { action: 'move', folder: 'Trash' }],
      ['DELETE', `/emails/${uid}?account=${victim}`],
      ['DELETE', `/emails/${uid}?account=${victim}&permanent=true`],
      ['POST', `/emails/${uid}/reply?account=${victim}`, { text: 'hijack' }],
      ['POST', `/emails/${uid}/forward?account=${victim}`, { to: 'thief@example.com' }],
      ['POST', `/emails/${uid}/labels?account=${victim}`, { labels: ['stolen'] }],
      ['POST', '/emails/send', { from: victim, to: 'x@example.com', subject: 's', text: 't' }],
      ['POST', '/emails/drafts', { account: victim, to: ['x@example.com'], subject: 's', text: 't' }],
      ['PUT', `/emails/drafts/${uid}`, { account: victim, subject: 'changed' }],
      ['POST', `/emails/drafts/${uid}/send`, { account: victim }],
      ['DELETE', `/emails/drafts/${uid}?account=${victim}`],
      ['POST', `/folders?account=${victim}`, { name: 'Stolen' }],
      ['DELETE', `/folders/Stolen?account=${victim}`],
      ['POST', `/lists/send/block?account=${victim}`, { entry: 'stolen.example' }],
      ['DELETE', `/lists/send/block/stolen.example?account=${victim}`],
    ];
    for (const [method, path, body] of writes) {
      const res = await server.api(path, { method, body, key: mallory.key });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.error.code).toBe('forbidden');
    }
    const email = (await server.api(`/emails/${uid}?account=${victim}`)).json.data.email;
    expect(email).toMatchObject({ folder: 'INBOX', flags: [], labels: [] });
    const folders = (await server.api(`/folders?account=${victim}`)).json.data.folders;
    expect(folders.map((f: { name: string }) => f.name)).not.toContain('Stolen');
    const sent = await server.api(`/emails?account=${victim}&folder=Sent`);
    expect(sent.json.data.emails).toEqual([]);
    expect((await server.api(`/lists/send/block?account=${victim}`)).json.data.entries).toEqual([]);
  });

  it('lets the owner read the same routes', async () => {
    for (const path of readRoutes()) {
      expect((await server.api(path)).status, path).toBe(200);
    }
  });

  it('lists only the key owner’s accounts in GET /accounts', async () => {
    const mine = await server.api('/accounts');
    expect(mine.status).toBe(200);
    expect(mine.json.data.accounts).toEqual([
      { address: server.inbox, kind: 'local', displayName: 'Agent', created_at: expect.any(String) },
    ]);
    const theirs = await server.api('/accounts', { key: mallory.key });
    expect(theirs.json.data.accounts.map((a: { address: string }) => a.address)).toEqual([mallory.inbox]);
  });

  it('matches the account case-insensitively for the owner, never for someone else', async () => {
    expect((await server.api(`/emails?account=${server.inbox.toUpperCase()}`)).status).toBe(200);
    const upper = await server.api(`/emails?account=${server.inbox.toUpperCase()}`, { key: mallory.key });
    expect(upper.status).toBe(403);
  });
});
