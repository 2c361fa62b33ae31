import { z } from 'zod';
export const pageKindField = z.enum(['list', 'detail', 'dashboard', 'form', 'custom']);

const kebab = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const slugField = z.string().min(1).max(200).regex(kebab, 'kebab-case: lower-case letters and digits, words joined by single hyphens');
export const titleField = z.string().trim().min(1).max(200);
export const iconField = z.string().trim().min(1).max(64).nullable();
export const visibleToField = z
  .strictObject({ roles: z.array(z.string().min(1).max(64)).min(1).max(50) })
  .nullable()
  .describe('Roles that see the page; null is anyone with pages.read. Table pages also need a data.read grant on their table.');

export const pageSchema = z
  .strictObject({
    id: z.string(),
    slug: z.string(),
    title: z.string(),
    kind: pageKindField,
    icon: z.string().nullable(),
    connectionId: z.string().nullable(),
    table: z.string().nullable(),
    config: z.record(z.string(), z.unknown()),
    layout: z.record(z.string(), z.unknown()).nullable(),
    visibleTo: z.strictObject({ roles: z.array(z.string()) }).nullable(),
    position: z.number().int(),
    generatedKey: z.string().nullable(),
    createdBy: z.string().nullable(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: 'Page' });

export const pageIdParams = z.object({ pageId: z.string().min(1).max(64) });
