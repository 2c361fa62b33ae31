import { z } from 'zod';

export const roleSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    builtin: z.boolean(),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .meta({ id: 'Role' });
export type Role = z.infer<typeof roleSchema>;

export const roleIdParam = z.string().min(1).max(64);
export const roleNameField = z.string().trim().min(1).max(120);
export const roleDescriptionField = z.string().trim().max(500).nullable();

const identifier = z.string().min(1).max(128);

/** D9: a grant narrowed to one connection, optionally one table, optionally some of its columns. */
export const grantScopeSchema = z
  .strictObject({
    connectionId: z.string().min(1).max(64),
    table: identifier.optional(),
    columns: z.array(identifier).min(1).max(500).optional(),
  })
  .meta({ id: 'GrantScope' });

const scopeInput = grantScopeSchema.refine((s) => s.columns === undefined || s.table !== undefined, {
  message: 'columns narrow a table: give table too',
  path: ['columns'],
});

export const grantInputSchema = z.strictObject({
  permission: z.string().min(1).max(200),
  scope: scopeInput.nullable().optional(),
});

export const grantSchema = z.strictObject({ permission: z.string(), scope: grantScopeSchema.nullable() }).meta({ id: 'Grant' });
export type GrantView = z.infer<typeof grantSchema>;

export const catalogEntrySchema = z
  .strictObject({
    name: z.string(),
    label: z.string(),
    description: z.string(),
    plugin: z.string(),
    /** The built-in roles holding it by declaration (K3); always includes admin. */
    builtinRoles: z.array(z.enum(['admin', 'editor', 'viewer'])),
  })
  .meta({ id: 'PermissionCatalogEntry' });
