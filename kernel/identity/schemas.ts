import { z } from 'zod';
import type { KernelTables } from '../meta/types.js';

/** The seed's User resource: exactly these fields, no others. */
export const userSchema = z
  .strictObject({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    status: z.enum(['active', 'invited', 'suspended']),
    totpEnabled: z.boolean(),
    lastLoginAt: z.number().nullable(),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .meta({ id: 'User' });

export type User = z.infer<typeof userSchema>;

export const emailField = z.string().min(3).max(320).email();
export const newPasswordField = z.string().min(8).max(200);
export const passwordField = z.string().min(1).max(200);
export const nameField = z.string().min(1).max(120);

export function toUser(row: KernelTables['users']): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    status: row.status,
    totpEnabled: Boolean(row.totp_enabled),
    lastLoginAt: row.last_login_at === null ? null : Number(row.last_login_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** What the caller holds (decisions BO1): permission names, and the scoped grants of those held only with scopes. */
export const effectivePermissionsShape = {
  permissions: z.array(z.string()).describe("Every permission the caller holds, with any scope (sorted; admin: every declared one; 'self' is implied)."),
  grants: z
    .array(
      z
        .strictObject({
          permission: z.string(),
          scope: z.strictObject({
            connectionId: z.string(),
            table: z.string().optional(),
            columns: z.array(z.string()).optional(),
          }),
        })
        .meta({ id: 'ScopedGrant' }),
    )
    .describe(
      'The grants of permissions held only with scopes (D9): each narrowed to a connection, a table, some columns. A permission held unscoped is not listed here.',
    ),
};
