// Engines: SQLite only: the SMTP listener's trusted networks, a protocol rule.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, settings } from '../../src/config.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import type { SmtpSession } from '../helpers/smtp-session.js';

/** Contract 8: clients in MAILROOM_SMTP_TRUSTED_NETWORKS are not counted against per-IP limits. */
describe('SMTP trusted networks', () => {
  let server: TestServer | undefined;
  const open: SmtpSession[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
    await server?.stop();
    server = undefined;
  });
  const connect = async (from?: string) => {
    const smtp = await openSmtp(server!.mailroom.smtp.port, '127.0.0.1', from);
    open.push(smtp);
    return smtp;
  };
  const subjects = async () =>
    (
      (await server!.api(`/emails?account=${server!.inbox}&limit=100`)).json.data.emails as {
        subject: string;
      }[]
    )
      .map((e) => e.subject)
      .sort();

  /** The reply codes to an EHLO written the moment the connection opens, before any greeting. */
  const talkAtOnce = (port: number): Promise<number[]> =>
    new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('EHLO early.example\r\n'));
      let text = '';
      const codes = () => (text.match(/^\d{3}(?= )/gm) ?? []).map(Number);
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (codes().length >= 2) socket.destroy();
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(codes()));
    });

  it('greets a client on the trusted networks at once, so one that speaks first is served', async () => {
    server = await startServer();
    expect(await talkAtOnce(server.mailroom.smtp.port)).toEqual([220, 250]);
  });

  it("keeps smtp-server's early-talker check for clients outside the trusted networks", async () => {
    server = await startServer({ smtpTrustedNetworks: ['10.0.0.0/8'] });
    expect(await talkAtOnce(server.mailroom.smtp.port)).toEqual([421]);
  });

  it('lets a load generator on localhost open 20 connections at once with the defaults, and delivers each', async () => {
    server = await startServer();
    expect(server.mailroom.config.smtpMaxConnectionsPerIp).toBe(10);
    const sessions = await Promise.all(Array.from({ length: 20 }, () => connect()));
    expect(sessions.map((s) => s.greeting.code)).toEqual(Array(20).fill(220));
    const sent = await Promise.all(
      sessions.map((smtp, i) =>
        smtp.send(
          'load@example.com',
          [server!.inbox],
          rawMessage({
            from: 'load@example.com',
            to: server!.inbox,
            subject: `Load ${String(i).padStart(2, '0')}`,
          }),
        ),
      ),
    );
    expect(sent.map((s) => s.data?.code)).toEqual(Array(20).fill(250));
    expect(await subjects()).toEqual(
      Array.from({ length: 20 }, (_, i) => `Load ${String(i).padStart(2, '0')}`),
    );
  });

  it('still refuses the connection past the per-IP limit when the client is outside the trusted networks', async () => {
    server = await startServer({ smtpTrustedNetworks: ['10.0.0.0/8'] });
    const admitted = await Promise.all(Array.from({ length: 10 }, () => connect()));
    expect(admitted.map((s) => s.greeting.code)).toEqual(Array(10).fill(220));
    const refused = await connect();
    expect(refused.greeting.code).toBe(421);
  });

  it('counts an address left out of the list against both per-IP limits, and not one in it', async () => {
    server = await startServer({
      smtpTrustedNetworks: ['127.0.0.1'],
      smtpMaxConnectionsPerIp: 1,
      smtpMessagesPerMinutePerIp: 1,
    });
    const trusted = [await connect(), await connect()];
    expect(trusted.map((s) => s.greeting.code)).toEqual([220, 220]);
    const other = await connect('127.0.0.2');
    expect(other.greeting.code).toBe(220);
    expect((await connect('127.0.0.2')).greeting.code).toBe(421);

    const send = (smtp: SmtpSession, subject: string) =>
      smtp.send(
        'a@example.com',
        [server!.inbox],
        rawMessage({ from: 'a@example.com', to: server!.inbox, subject }),
      );
    const codes = [
      (await send(trusted[0]!, 'Trusted 1')).data?.code,
      (await send(trusted[1]!, 'Trusted 2')).data?.code,
      (await send(trusted[0]!, 'Trusted 3')).data?.code,
      (await send(other, 'Other 1')).data?.code,
      (await send(other, 'Other 2')).data?.code,
    ];
    expect(codes).toEqual([250, 250, 250, 250, 451]);
    expect(await subjects()).toEqual(['Other 1', 'Trusted 1', 'Trusted 2', 'Trusted 3']);
  });

  it('matches an IPv4 client a listener on :: sees as ::ffff:127.0.0.1 against 127.0.0.0/8', async () => {
    server = await startServer({ host: '::' });
    const sessions = await Promise.all(Array.from({ length: 12 }, () => connect()));
    expect(sessions.map((s) => s.greeting.code)).toEqual(Array(12).fill(220));
  });

  it('takes addresses and networks of both families, none for none, and refuses anything else naming it', () => {
    const load = (value: string) =>
      loadConfig({}, { MAILROOM_SMTP_TRUSTED_NETWORKS: value }).smtpTrustedNetworks;
    expect(settings.smtpTrustedNetworks.default).toEqual(['127.0.0.0/8', '::1']);
    expect(loadConfig({}, {}).smtpTrustedNetworks).toEqual(['127.0.0.0/8', '::1/128']);
    expect(load(' 10.0.0.0/8, 192.0.2.7 ,fd00::/8,::ffff:10.0.0.0/104')).toEqual([
      '10.0.0.0/8',
      '192.0.2.7/32',
      'fd00::/8',
      '::ffff:10.0.0.0/104',
    ]);
    expect(load('none')).toEqual([]);
    for (const bad of [
      '10.0.0.0/33',
      'localhost',
      '10.0.0.0/8/8',
      '::1/129',
      '10.0.0/8',
      '10.0.0.0/-1',
      '10.0.0.0/',
    ]) {
      expect(() => load(`127.0.0.1,${bad}`), bad).toThrow(
        `MAILROOM_SMTP_TRUSTED_NETWORKS: ${JSON.stringify(bad)} is not an address or a network`,
      );
    }
  });
});
