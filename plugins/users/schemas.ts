import { z } from 'zod';
import { cursorField, emailField, listQuery, nameField, newPasswordField, userSchema } from '../../kernel/api.js';

export const userIdParams = z.object({ id: z.string().min(1).max(64) });
const roleId = z.string().min(1).max(64);
export const roleIdsField = z.array(roleId).max(50);

export const listUsersQuery = listQuery.extend({
  cursor: cursorField(z.strictObject({ id: z.string().min(1).max(64) })),
  status: z.enum(['active', 'invited', 'suspended']).optional(),
  q: z.string().trim().min(1).max(320).optional().describe('Case-insensitive search in e-mail and name'),
  roleId: roleId.optional().describe('Only users holding this role'),
});

export const createUserBody = z.strictObject({
  email: emailField,
  name: nameField,
  roleIds: roleIdsField.optional(),
  password: newPasswordField.optional(),
});

export const patchUserBody = z.strictObject({
  name: nameField.optional(),
  email: emailField.optional(),
  status: z.enum(['active', 'suspended']).optional(),
});

export const roleIdsBody = z.strictObject({ roleIds: roleIdsField });

export const userBody = z.strictObject({ data: z.strictObject({ user: userSchema }) });
/** An invitation's answer: the user, and the set-password link only when e-mail is not set up (DB47). */
export const invitedUserBody = z.strictObject({
  data: z.strictObject({
    user: userSchema,
    inviteLink: z
      .string()
      .optional()
      .describe('Only while outgoing e-mail is not set up: the set-password link the invitation would have mailed, for the inviter to pass on.'),
  }),
});
/** The user and the ids of the roles it holds (the User object itself stays exactly the seed's). */
export const userWithRolesBody = z.strictObject({ data: z.strictObject({ user: userSchema, roleIds: z.array(z.string()) }) });
