import fs from 'node:fs';
import path from 'node:path';
import type { z } from '@hono/zod-openapi';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as Client from '../../src/client/types.js';
import type * as Emails from '../../src/contract/emails.js';
import type * as Labels from '../../src/contract/labels.js';
import type * as Organise from '../../src/contract/organise.js';
import type * as Send from '../../src/contract/send.js';
import type * as Webhooks from '../../src/contract/webhooks.js';
import type * as Events from '../../src/contract/events.js';
import { clientTypeSources } from '../../scripts/client-types.js';
import { servedDocuments } from '../../scripts/served-documents.js';
import type { ServedDocuments } from '../../scripts/served-documents.js';

const root = path.resolve(import.meta.dirname, '../..');

function operationIds(document: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const item of Object.values(
    document.paths as Record<string, Record<string, { operationId?: string }>>,
  ))
    for (const operation of Object.values(item)) if (operation.operationId) ids.push(operation.operationId);
  return ids;
}

describe('the typed client (mailroom-server/client)', { timeout: 60_000 }, () => {
  let documents: ServedDocuments;

  it('has the types the served OpenAPI documents generate now (npm run build writes them)', async () => {
    documents = await servedDocuments();
    for (const [file, text] of Object.entries(await clientTypeSources(documents))) {
      const committed = fs.readFileSync(path.join(root, file), 'utf8');
      expect(committed === text, `${file} is stale against the served document: run npm run build`).toBe(
        true,
      );
    }
  });

  it('covers every operation of the API and the admin API, each with an operationId', () => {
    const generated = {
      api: fs.readFileSync(path.join(root, 'src/client/generated/api.ts'), 'utf8'),
      admin: fs.readFileSync(path.join(root, 'src/client/generated/admin.ts'), 'utf8'),
    };
    for (const which of ['api', 'admin'] as const) {
      const ids = operationIds(documents[which]);
      const operations = Object.values(documents[which].paths as object).flatMap((item) => Object.keys(item));
      expect(ids).toHaveLength(operations.length);
      for (const id of ids) expect(generated[which], id).toContain(`\n    ${id}: {`);
    }
    expect(operationIds(documents.api)).toEqual(
      expect.arrayContaining(['emptyFolder', 'createEventStreamToken']),
    );
  });
});

/** What the server answers with (a schema's output) and what a caller sends (its input). */
type Out<S extends z.ZodType> = z.output<S>;
type In<S extends z.ZodType> = z.input<S>;

/** Each assignable to the other: whatever one type allows, the other allows too. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The Email as the document can say it: a field typed `unknown` (authResults) accepts undefined,
 * so the JSON Schema leaves it out of `required` and the client reads it as optional, though the
 * server always sends it (null without results).
 */
type DocumentedEmail = Omit<Out<typeof Emails.Email>, 'authResults'> & { authResults?: unknown };

describe("the client's types are the contract's (src/contract/), checked by tsc", () => {
  it('types every answer as the schema the server answers with', () => {
    expectTypeOf<Same<Client.Email, DocumentedEmail>>().toEqualTypeOf<true>();
    expectTypeOf<
      Same<Client.Thread, Omit<Out<typeof Emails.Thread>, 'messages'> & { messages: DocumentedEmail[] }>
    >().toEqualTypeOf<true>();
    expectTypeOf<Client.Attachment>().toEqualTypeOf<Out<typeof Emails.Attachment>>();
    expectTypeOf<Client.Folder>().toEqualTypeOf<Out<typeof Emails.Folder>>();
    expectTypeOf<Client.ThreadSummary>().toEqualTypeOf<Out<typeof Emails.ThreadSummary>>();
    expectTypeOf<Client.Draft>().toEqualTypeOf<Out<typeof Send.Draft>>();
    expectTypeOf<Client.SendResult>().toEqualTypeOf<Out<typeof Send.SendResult>>();
    expectTypeOf<Same<Client.ReplyResult, Out<typeof Send.ReplyResult>>>().toEqualTypeOf<true>();
    expectTypeOf<Client.Label>().toEqualTypeOf<Out<typeof Labels.Label>>();
    expectTypeOf<Client.DeleteEmailResult>().toEqualTypeOf<Out<typeof Organise.DeleteEmailResult>>();
    expectTypeOf<Client.EmptyFolderResult>().toEqualTypeOf<Out<typeof Organise.EmptyFolderResult>>();
    expectTypeOf<Client.DeleteFolderResult>().toEqualTypeOf<Out<typeof Organise.DeleteFolderResult>>();
    expectTypeOf<Client.Webhook>().toEqualTypeOf<Out<typeof Webhooks.Webhook>>();
    expectTypeOf<
      Same<Client.WebhookWithSecret, Out<typeof Webhooks.WebhookWithSecret>>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Same<Client.WebhookDeliveryAttempt, Out<typeof Webhooks.DeliveryAttempt>>
    >().toEqualTypeOf<true>();
    expectTypeOf<Client.EventStreamToken>().toEqualTypeOf<Out<typeof Events.EventStreamToken>>();
  });

  it('types every request body as the schema the server parses', () => {
    expectTypeOf<Client.SendEmail>().toEqualTypeOf<In<typeof Send.SendBody>>();
    expectTypeOf<Client.ReplyEmail>().toEqualTypeOf<In<typeof Send.ReplyBody>>();
    expectTypeOf<Client.ForwardEmail>().toEqualTypeOf<In<typeof Send.ForwardBody>>();
    expectTypeOf<Client.CreateDraft>().toEqualTypeOf<In<typeof Send.CreateDraftBody>>();
    expectTypeOf<Client.UpdateDraft>().toEqualTypeOf<In<typeof Send.UpdateDraftBody>>();
    expectTypeOf<Client.AttachmentInput>().toEqualTypeOf<In<typeof Send.AttachmentInput>>();
    expectTypeOf<Client.CreateWebhook>().toEqualTypeOf<In<typeof Webhooks.CreateWebhookBody>>();
    expectTypeOf<Client.UpdateWebhook>().toEqualTypeOf<In<typeof Webhooks.UpdateWebhookBody>>();
  });
});
