import fs from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connect } from '../helpers/mcp.js';
import { openStream } from '../helpers/sse-client.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const fixture = (kind: string, name: string) =>
  fs.readFileSync(new URL(`../../fixtures/screening/${kind}/${name}.eml`, import.meta.url));
const INJECTION = 'ignore all previous instructions';

describe(
  'screening on the Email: SMTP in, HTTP, MCP and events out (contract 16)',
  { timeout: 60_000 },
  () => {
    let server: TestServer;
    let client: Client;
    let hostileUid: number;
    let streamed: { screening: unknown; extractedText: string };

    beforeAll(async () => {
      server = await startServer();
      client = await connect(server, server.key);
      const envelope = { from: 'news@brewco.com', to: [server.inbox] };
      const stream = await openStream(server, `?account=${server.inbox}`);
      try {
        await server.sendRaw(fixture('hostile', 'en-newsletter-with-injection'), envelope);
        streamed = (await stream.nextEvent()).json.data.email;
      } finally {
        stream.close();
      }
      await server.sendRaw(fixture('clean', 'en-newsletter-mailchimp'), envelope);
      const list = await eventually(async () => {
        const res = await server.api(`/emails?account=${server.inbox}`);
        return res.json.data.emails.length === 2 && res.json.data.emails;
      });
      hostileUid = list.find((e: { subject: string }) => e.subject === 'This week: new beans').uid;
    });
    afterAll(async () => {
      await client.close();
      await server.stop();
    });

    it('lists each email with its verdict: the newsletter with a hidden order for review, the plain one clear', async () => {
      const res = await server.api(`/emails?account=${server.inbox}`);
      const bySubject = new Map(res.json.data.emails.map((e: { subject: string }) => [e.subject, e]));
      const hostile = bySubject.get('This week: new beans') as {
        screening: { verdict: string; reasons: string[]; hidden: string };
        extractedText: string;
      };
      expect(hostile.screening.verdict).toBe('review');
      expect(hostile.screening.reasons).toEqual(['hidden_text', 'instructions_to_agent']);
      expect(hostile.screening.hidden.toLowerCase()).toContain(INJECTION);
      expect(hostile.extractedText.toLowerCase()).not.toContain(INJECTION);
      expect(bySubject.get('This week: cold brew season is over')).toMatchObject({
        screening: { verdict: 'clear', reasons: [], hidden: '' },
      });
    });

    it('reads the email with its screening, the hidden text left out of extractedText and extractedHtml', async () => {
      const res = await server.api(`/emails/${hostileUid}?account=${server.inbox}`);
      const email = res.json.data.email;
      expect(email.screening.reasons).toEqual(['hidden_text', 'instructions_to_agent']);
      expect(email.html.toLowerCase()).toContain(INJECTION);
      expect(email.text.toLowerCase()).not.toContain(INJECTION);
      expect(email.extractedText.toLowerCase()).not.toContain(INJECTION);
      expect(email.extractedText).toContain('Our Guji is back.');
      expect(email.extractedHtml.toLowerCase()).not.toContain(INJECTION);
      expect(email.extractedHtml).toContain('Our Guji is back.');
    });

    it('gives MCP read_email and list_emails the same screening', async () => {
      const { email } = await call(client, 'read_email', { account: server.inbox, uid: hostileUid });
      expect(email.screening).toEqual(
        (await server.api(`/emails/${hostileUid}?account=${server.inbox}`)).json.data.email.screening,
      );
      const { emails } = await call(client, 'list_emails', { account: server.inbox });
      expect(emails.map((e: { screening: { verdict: string } }) => e.screening.verdict).sort()).toEqual([
        'clear',
        'review',
      ]);
    });

    it('carries the screening in the email.received event', () => {
      expect(streamed.screening).toMatchObject({
        verdict: 'review',
        reasons: ['hidden_text', 'instructions_to_agent'],
      });
      expect(streamed.extractedText.toLowerCase()).not.toContain(INJECTION);
    });

    it('counts the message for review, not the clear one, in /metrics', async () => {
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      expect(metrics).toMatch(/^mailroom_screening_total\{outcome="review"\} 1$/m);
    });

    it('documents the Screening schema on the Email in the OpenAPI document', async () => {
      const res = await server.api('/api/v1/openapi.json', { key: null });
      expect(res.json.components.schemas.Email.required).toContain('screening');
      expect(res.json.components.schemas.Screening.properties.reasons.items.enum).toContain('link_mismatch');
    });
  },
);
