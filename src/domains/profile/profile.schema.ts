/** Profile photo (upload or base64) and account deletion. */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { AccountDeletion } from './deletion.service.ts';
import { deleteAccount } from './deletion.service.ts';
import { setProfilePhoto } from './profile.service.ts';

export const AccountDeletionResult = builder.objectRef<AccountDeletion>('AccountDeletion').implement({
  description: 'The answer of an account deletion',
  fields: (t) => ({
    deleted: t.exposeBoolean('deleted'),
    removedRows: t.exposeInt('removedRows', { description: 'rows removed besides the account itself' }),
  }),
});

const ProfilePhotoDataInput = builder.inputType('ProfilePhotoDataInput', {
  description: 'A profile photo sent inline',
  fields: (t) => ({
    data: t.string({ required: true, description: 'the image, base64-encoded' }),
    contentType: t.string({ required: true, description: 'image/jpeg, image/png, image/webp or image/heic' }),
  }),
  validate: z.object({
    data: z.base64({ message: 'data must be base64' }),
    contentType: z.string().trim().min(1).max(100),
  }),
});

builder.mutationFields((t) => ({
  setProfilePhoto: t.withAuth({ scope: 'profile:write' }).prismaField({
    type: 'User',
    description: 'Sets the caller\'s profile photo from an uploaded file',
    args: { file: t.arg({ type: 'File', required: true }) },
    resolve: (query, _root, { file }, ctx) => setProfilePhoto(ctx, { file, argument: 'file' }, query),
  }),
  setProfilePhotoData: t.withAuth({ scope: 'profile:write' }).prismaField({
    type: 'User',
    description: 'Sets the caller\'s profile photo from base64 data',
    args: { input: t.arg({ type: ProfilePhotoDataInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => {
      const file = new Blob([Buffer.from(input.data, 'base64')], { type: input.contentType });
      return setProfilePhoto(ctx, { file, argument: 'data' }, query);
    },
  }),
  deleteAccount: t.withAuth({ scope: 'account:write' }).field({
    type: AccountDeletionResult,
    description: 'Permanently deletes the caller\'s account and everything stored for it',
    resolve: (_root, _args, ctx) => deleteAccount(ctx),
  }),
}));
