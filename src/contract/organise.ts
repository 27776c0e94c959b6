import { z } from '@hono/zod-openapi';
import { folderNameProblem, FOLDER_NAME_MAX } from '../mailbox/organising/folders.js';
import { EMAIL_ACTIONS } from '../mailbox/organising/organise.js';
import { account, accountEither, booleanQuery, uidPath } from './common.js';
import { labelRef } from './labels.js';

const whereFolder = z
  .string()
  .min(1)
  .optional()
  .openapi({ description: 'the folder the email must be in; by uid alone when omitted' });

export const OrganiseQuery = z.object({ account, folder: whereFolder });

/** As OrganiseQuery, for routes whose JSON body may carry `account` instead. */
export const OrganiseBodyQuery = z.object({ account: accountEither, folder: whereFolder });

export const DeleteEmailQuery = z.object({
  account,
  folder: whereFolder,
  permanent: booleanQuery
    .optional()
    .openapi({ description: 'delete for good at once instead of moving to Trash' }),
});

export const EmptyFolderQuery = z.object({
  account,
  folder: z.string().min(1).openapi({ description: 'the folder to empty', example: 'INBOX' }),
  permanent: booleanQuery
    .optional()
    .openapi({ description: 'delete for good at once instead of moving to Trash' }),
});

export const EmptyFolderResult = z
  .object({
    folder: z.string().openapi({ description: 'the folder emptied' }),
    count: z.number().int().openapi({ description: 'how many emails left it' }),
    deleted: z.boolean().openapi({ description: 'true: gone for good; false: moved to Trash' }),
    movedTo: z.string().nullable().openapi({ description: 'Trash, or null when deleted for good' }),
  })
  .openapi('EmptyFolderResult');

const actionList = EMAIL_ACTIONS.join(', ');

export const UpdateEmailBody = z
  .strictObject({
    account: accountEither,
    action: z
      .enum(EMAIL_ACTIONS, {
        error: (issue) =>
          issue.input === undefined
            ? `action is required: one of ${actionList}`
            : `action must be one of ${actionList}`,
      })
      .openapi({ description: 'read/unread set or clear \\Seen; flag/unflag \\Flagged; move needs folder' }),
    folder: z
      .string({ error: 'folder must be a string' })
      .min(1, 'folder must not be empty')
      .optional()
      .openapi({ description: 'with action move: the destination folder (must exist)', example: 'Archive' }),
  })
  .superRefine((body, ctx) => {
    if (body.action === 'move' && body.folder === undefined)
      ctx.addIssue({ code: 'custom', path: ['folder'], message: 'folder is required with action move' });
    if (body.action !== 'move' && body.folder !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['folder'],
        message: 'folder is only used with action move; to say where the email is, use the ?folder= query',
      });
    }
  });

export const DeleteEmailResult = z
  .object({
    uid: z.number().int(),
    deleted: z.boolean().openapi({ description: 'true: gone for good; false: moved to Trash' }),
    folder: z.string().nullable().openapi({ description: 'Trash, or null when deleted for good' }),
  })
  .openapi('DeleteEmailResult');

export const ApplyLabelsBody = z.strictObject({
  account: accountEither,
  labels: z
    .array(labelRef, { error: 'labels must be an array of label ids or names' })
    .min(1, 'labels must name at least one label')
    .max(100, 'at most 100 labels at once'),
});

export const EmailLabelParams = z.object({
  id: uidPath('id'),
  labelId: labelRef.openapi({ param: { name: 'labelId', in: 'path' } }),
});

export const CreateFolderBody = z.strictObject({
  account: accountEither,
  name: z
    .string({ error: (issue) => (issue.input === undefined ? 'name is required' : 'name must be a string') })
    .superRefine((value, ctx) => {
      const problem = folderNameProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .openapi({ minLength: 1, maxLength: FOLDER_NAME_MAX, example: 'Archive' }),
});

export const FolderNameParam = z.object({
  name: z
    .string()
    .min(1)
    .openapi({ param: { name: 'name', in: 'path' }, description: 'the folder name, URL-encoded' }),
});

export const DeleteFolderResult = z
  .object({
    name: z.string(),
    deleted: z.literal(true),
    movedToTrash: z.number().int().openapi({ description: 'emails the folder held, now in Trash' }),
  })
  .openapi('DeleteFolderResult');
