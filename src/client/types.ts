/**
 * Named types of every API resource, from the generated OpenAPI types (themselves from the zod
 * schemas that validate requests). Exported by the package root and by `mailroom-server/client`.
 */
import type { components as ApiComponents } from './generated/api.js';
import type { components as AdminComponents } from './generated/admin.js';

type Schemas = ApiComponents['schemas'];
type AdminSchemas = AdminComponents['schemas'];

export type { paths as ApiPaths, operations as ApiOperations } from './generated/api.js';
export type { paths as AdminPaths, operations as AdminOperations } from './generated/admin.js';

/** An email as read (`html` and `extractedHtml` only when one email is read; `text` cut to 500 characters in lists). */
export type Email = Schemas['Email'];
export type Attachment = Schemas['Attachment'];
export type LabelRef = Schemas['LabelRef'];
export type Draft = Schemas['Draft'];
export type Label = Schemas['Label'];
export type Folder = Schemas['Folder'];
export type Thread = Schemas['Thread'];
export type ThreadSummary = Schemas['ThreadSummary'];
export type Account = Schemas['Account'];
export type Webhook = Schemas['Webhook'];
export type WebhookWithSecret = Schemas['WebhookWithSecret'];
export type WebhookDeliveryAttempt = Schemas['WebhookDeliveryAttempt'];
export type SendResult = Schemas['SendResult'];
export type ReplyResult = Schemas['ReplyResult'];
export type DeleteEmailResult = Schemas['DeleteEmailResult'];
export type EmptyFolderResult = Schemas['EmptyFolderResult'];
export type DeleteFolderResult = Schemas['DeleteFolderResult'];
export type EventStreamToken = Schemas['EventStreamToken'];

/** Request bodies. */
export type SendEmail = Schemas['SendEmail'];
export type ReplyEmail = Schemas['ReplyEmail'];
export type ForwardEmail = Schemas['ForwardEmail'];
export type CreateDraft = Schemas['CreateDraft'];
export type UpdateDraft = Schemas['UpdateDraft'];
export type AttachmentInput = Schemas['AttachmentInput'];
export type CreateWebhook = Schemas['CreateWebhook'];
export type UpdateWebhook = Schemas['UpdateWebhook'];

/** What a webhook receives and `GET /events` streams, by type. */
export type MailroomEvent = Schemas['MailroomEvent'];
export type EmailReceivedEvent = Schemas['EmailReceivedEvent'];
export type EmailSentEvent = Schemas['EmailSentEvent'];
export type EmailBouncedEvent = Schemas['EmailBouncedEvent'];
export type WebhookTestEvent = Schemas['WebhookTestEvent'];

/** The error envelope every refusal carries: `{success: false, error: {code, message, details}}`. */
export type ApiErrorBody = Schemas['Error'];
export type ErrorCode = ApiErrorBody['error']['code'];

/** The admin API's resources (`/admin/v1`). */
export type AdminDomain = AdminSchemas['AdminDomain'];
export type AdminUser = AdminSchemas['AdminUser'];
export type AdminKey = AdminSchemas['AdminKey'];
export type AdminKeyWithSecret = AdminSchemas['AdminKeyWithSecret'];
export type AdminInbox = AdminSchemas['AdminInbox'];
