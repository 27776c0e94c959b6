import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('a display name that shows another address', () => {
  let server: TestServer;
  let uid: number;
  beforeAll(async () => {
    server = await startServer();
    await server.sendMail({ from: 'alice@example.com', to: server.inbox, subject: 'Hello', text: 'Hi' });
    uid = (await server.api(`/emails?account=${server.inbox}`)).json.data.emails[0].uid;
  });
  afterAll(async () => server.stop());

  const base = () => ({ from: server.inbox, to: 'bob@example.com', subject: 'Names', text: 'Body' });
  const sentCount = async () =>
    (await server.api(`/emails?account=${server.inbox}&folder=Sent`)).json.data.emails.length;

  function expectRefused(res: Awaited<ReturnType<TestServer['api']>>, path: string) {
    expect(res.status, res.text).toBe(400);
    expect(res.json.error.code).toBe('validation_error');
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    expect(res.json.error.details[0].message).toMatch(/display name .* shows an address other than/);
  }

  it.each([
    ['from', { from: `"ceo@example.com" <${'agent@mailroom.test'}>` }, 'from'],
    ['to', { to: '"agent@mailroom.test" <bob@example.com>' }, 'to'],
    ['one of to', { to: ['carol@example.com', 'agent@mailroom.test <bob@example.com>'] }, 'to.1'],
    ['cc', { cc: '"Support (support@bank.example)" <bob@example.com>' }, 'cc'],
    ['bcc', { bcc: '"agent＠mailroom.test" <bob@example.com>' }, 'bcc'],
    ['replyTo', { replyTo: '"=?UTF-8?B?YWdlbnRAbWFpbHJvb20udGVzdA==?=" <bob@example.com>' }, 'replyTo'],
  ])('refuses it in %s on send, and sends nothing', async (_field, fields, path) => {
    const before = await sentCount();
    expectRefused(await server.api('/emails/send', { body: { ...base(), ...fields } }), path);
    expect(await sentCount()).toBe(before);
  });

  it('refuses it on reply, forward and drafts', async () => {
    const spoof = '"agent@mailroom.test" <bob@example.com>';
    const acc = `account=${server.inbox}`;
    expectRefused(await server.api(`/emails/${uid}/reply?${acc}`, { body: { text: 'x', cc: spoof } }), 'cc');
    expectRefused(await server.api(`/emails/${uid}/forward?${acc}`, { body: { to: spoof } }), 'to');
    expectRefused(
      await server.api('/emails/drafts', { body: { account: server.inbox, to: [spoof], subject: 'd' } }),
      'to.0',
    );
  });

  it('accepts names without an address, and a name showing the very address', async () => {
    const res = await server.api('/emails/send', {
      body: {
        ...base(),
        from: `"Agent" <${server.inbox}>`,
        to: ['"Bob Smith" <bob@example.com>', '"BOB@example.com" <bob@example.com>'],
        cc: '"Team @ Example" <team@example.com>',
      },
    });
    expect(res.status, res.text).toBe(200);
  });
});
